import ObscuraCrypto

/// The check that the user wrote an exported key down: after the text is shown (and the
/// screen cleared), they type back one body group, chosen at random, and the check
/// group (docs/FORMAT.md §4.3).
///
/// A typed group proves more than a "yes": someone who did not copy the text cannot
/// answer, whichever group is asked. The check is pure; the prompts are the CLI's.
public struct TypeBackCheck: Sendable {
    /// Failed answers after which the CLI shows the key again.
    public static let attemptsBeforeRedisplay = 3

    /// The body group asked for, 1...13 as people count (1 is the group after the word).
    public let group: Int

    /// A check asking for a group drawn uniformly from 1...13.
    public init(using random: RandomSource = SystemRandom()) {
        group = random.uniform(in: 1..<(KeyText.bodyGroups + 1))
    }

    /// A check asking for `group` (tests).
    package init(group: Int) {
        precondition((1...KeyText.bodyGroups).contains(group), "body groups are 1...13")
        self.group = group
    }

    /// Whether `typed` is body group ``group`` of `key`'s text followed by its check
    /// group: 8 symbols, read as leniently as a key text (any case, O/I/L, separators
    /// anywhere), compared in constant time.
    public func matches(_ typed: SecureBytes, key: SecureBytes, kind: KeyKind) -> Bool {
        guard let symbols = KeyText.symbols(of: typed), symbols.count == 2 * KeyText.groupSize,
              let typedValues = KeyText.values(of: symbols)
        else { return false }
        return typedValues == expected(key: key, kind: kind)
    }

    /// The values of the body group and the check group that a right answer has.
    func expected(key: SecureBytes, kind: KeyKind) -> SecureBytes {
        let body = Crockford32.encode(key)
        let check = KeyText.checkGroup(key, kind: kind)
        let start = (group - 1) * KeyText.groupSize
        let answer = SecureBytes(count: 2 * KeyText.groupSize)
        answer.withUnsafeMutableBytes { out in
            body.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<(start + KeyText.groupSize)])) }
            check.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[KeyText.groupSize...]).copyMemory(from: $0) }
        }
        return KeyText.values(of: answer)!
    }
}
