import Foundation

/// Finds runs of neighbouring keys on a US QWERTY keyboard ("qwerty", "asdf", "1qaz2wsx",
/// "zaq!"), counting the turns a run takes and the shifted keys in it.
struct KeyboardMatcher {
    /// A key's place: its row and its horizontal position in key widths (rows are
    /// staggered), and whether the character needs Shift.
    struct Key { var row: Int; var x: Double; var shifted: Bool }

    /// The rows, unshifted and shifted, with each row's offset from the left edge.
    private static let rows: [(plain: String, shifted: String, offset: Double)] = [
        ("`1234567890-=", "~!@#$%^&*()_+", 0),
        ("qwertyuiop[]\\", "QWERTYUIOP{}|", 1.5),
        ("asdfghjkl;'", "ASDFGHJKL:\"", 1.75),
        ("zxcvbnm,./", "ZXCVBNM<>?", 2.25),
    ]

    /// Every character's key.
    static let keys: [UInt32: Key] = {
        var keys: [UInt32: Key] = [:]
        for (row, line) in rows.enumerated() {
            for (column, (plain, shifted)) in zip(line.plain.unicodeScalars, line.shifted.unicodeScalars).enumerated() {
                let x = Double(column) + line.offset
                keys[plain.value] = Key(row: row, x: x, shifted: false)
                keys[shifted.value] = Key(row: row, x: x, shifted: true)
            }
        }
        return keys
    }()

    /// The keys an attacker may start on, and each key's average number of neighbours.
    static let (startingKeys, averageDegree): (Double, Double) = {
        let places = keys.values.filter { !$0.shifted }
        let edges = places.map { a in places.filter { b in direction(a, b) != nil }.count }.reduce(0, +)
        return (Double(places.count), Double(edges) / Double(places.count))
    }()

    /// The step from key `a` to key `b` when they are neighbours (same row and one key
    /// apart, or the next row up or down and less than a key width across), else nil.
    static func direction(_ a: Key, _ b: Key) -> Int? {
        let rows = b.row - a.row, dx = b.x - a.x
        if rows == 0, abs(dx) == 1 { return dx > 0 ? 1 : -1 }
        if abs(rows) == 1, abs(dx) < 1 { return rows * 10 + (dx > 0 ? 1 : -1) }
        return nil
    }

    /// Shortest run worth offering.
    static let minimumLength = 3

    /// Offers every run of at least three neighbouring keys (and every stretch of one).
    func match(_ text: PasswordText, into matches: inout PasswordMatches) {
        var start = 0
        while start < text.count {
            var end = start + 1
            while end < text.count, let a = Self.keys[text.scalars[end - 1]], let b = Self.keys[text.scalars[end]],
                  Self.direction(a, b) != nil {
                end += 1
            }
            if end - start >= Self.minimumLength {
                for s in start...(end - Self.minimumLength) {
                    for e in (s + Self.minimumLength)...end {
                        matches.offer(s, e, log10Guesses: cost(text.scalars[s..<e]), as: .keyboard)
                    }
                }
            }
            start = end
        }
    }

    /// log10 of the walks an attacker tries: the starting key, a direction at the start
    /// and at each turn, where the turns fall, the length, and which keys are shifted.
    func cost(_ run: ArraySlice<UInt32>) -> Double {
        // Key by key, with no array of them: the run is the password, re-encoded.
        var turns = 0, shifted = 0, count = 0
        var last: Int?
        var previous: Key?
        for scalar in run {
            let key = Self.keys[scalar]!
            if key.shifted { shifted += 1 }
            if let previous {
                let step = Self.direction(previous, key)
                if let last, step != last { turns += 1 }
                last = step
            }
            previous = key
            count += 1
        }
        var guesses = log10(Self.startingKeys) + Double(turns + 1) * log10(Self.averageDegree)
        guesses += log10Binomial(count - 1, turns) + log10(Double(count))
        if shifted == count {
            guesses += log10(2)
        } else if shifted > 0 {
            guesses += log10VariantCount(count, upTo: min(shifted, count - shifted))
        }
        return guesses
    }
}
