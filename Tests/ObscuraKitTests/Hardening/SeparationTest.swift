import Foundation

/// Does a measure tell real slots from decoys better than chance? (issue #6 item 7)
///
/// Each trial is one vault directory: a value per slot and which slots are real. Two
/// questions are asked of the trials together:
///
/// - **Rank sum** (Mann-Whitney): rank the slots by the value (ties share their mean
///   rank); under the null hypothesis, that real and decoy slots are exchangeable, any
///   choice of which slots are real is as likely as the one seen. The p value is exact:
///   the distribution of the trials' summed rank sum over every such choice, with the
///   ties as they are. (A normal approximation was used at first; with a measure that
///   ties almost everywhere, one trial whose one distinct value fell on the written slot
///   gave z = 3.0 and p = 0.0027 where the exact chance is 1 in 10, failing CI runs
///   about one time in three.) The z score is still reported.
/// - **Together**: how often the reals take adjacent ranks with no decoy among them. For
///   3 reals in 10 slots that happens by chance with probability 8/120 = 1/15; the count
///   over the trials is compared with that binomial.
///
/// A measure separates when either p value is below `alpha` divided by the number of
/// measures (Bonferroni).
struct SeparationTest {
    struct Trial {
        var values: [Double]
        var isReal: [Bool]
    }

    struct Result {
        var z: Double
        var pRankSum: Double
        var together: Int
        var pTogether: Double
        var trials: Int
        func separates(alpha: Double) -> Bool { pRankSum < alpha || pTogether < alpha }
    }

    static func evaluate(_ trials: [Trial]) -> Result {
        var sum = 0.0, mean = 0.0, variance = 0.0, together = 0
        var chance = 0.0
        var ranked = [(ranks: [Double], reals: Int)]()
        for trial in trials {
            let ranks = midRanks(trial.values)
            let n = Double(trial.values.count), m = Double(trial.isReal.filter { $0 }.count)
            ranked.append((ranks, Int(m)))
            sum += zip(ranks, trial.isReal).filter(\.1).map(\.0).reduce(0, +)
            mean += m * (n + 1) / 2
            // Variance with the tie correction.
            var ties = [Double: Double]()
            for r in ranks { ties[r, default: 0] += 1 }
            let correction = ties.values.reduce(0) { $0 + ($1 * $1 * $1 - $1) } / (n * (n - 1))
            variance += m * (n - m) / 12 * ((n + 1) - correction)
            let realRanks = zip(ranks, trial.isReal).filter(\.1).map(\.0)
            let low = realRanks.min()!, high = realRanks.max()!
            if !zip(ranks, trial.isReal).contains(where: { !$0.1 && $0.0 >= low && $0.0 <= high }) { together += 1 }
            chance = (n - m + 1) * factorial(m) * factorial(n - m) / factorial(n)
        }
        let z = variance > 0 ? (sum - mean) / variance.squareRoot() : 0
        return Result(
            z: z, pRankSum: exactRankSumP(ranked, observed: sum),
            together: together, pTogether: binomialTail(trials.count, together, chance), trials: trials.count)
    }

    /// P(|S − E[S]| ≥ |observed − E[S]|) for S the reals' rank sum added over the trials,
    /// when each trial's reals are any `reals` of its slots with equal chance (its
    /// `ranks` as ``midRanks(_:)`` gave them, ties included). Ranks are halves at worst,
    /// so sums are kept doubled, as integers.
    static func exactRankSumP(_ trials: [(ranks: [Double], reals: Int)], observed: Double) -> Double {
        var total: [Int: Double] = [0: 1]
        for (ranks, m) in trials {
            let doubled = ranks.map { Int(($0 * 2).rounded()) }
            // The distribution of one trial's doubled rank sum over every choice of m slots.
            var counts = [Int: Double]()
            var ways = [[Int: Double]](repeating: [:], count: m + 1)
            ways[0] = [0: 1]
            for rank in doubled {
                for k in stride(from: m, to: 0, by: -1) {
                    for (sum, count) in ways[k - 1] { ways[k][sum + rank, default: 0] += count }
                }
            }
            let choices = ways[m].values.reduce(0, +)
            for (sum, count) in ways[m] { counts[sum] = count / choices }
            var next = [Int: Double]()
            for (a, p) in total { for (b, q) in counts { next[a + b, default: 0] += p * q } }
            total = next
        }
        let mean = total.reduce(0.0) { $0 + Double($1.key) * $1.value }
        let distance = abs(observed * 2 - mean)
        // The tolerance keeps a sum at exactly the observed distance from rounding out.
        return min(1, total.filter { abs(Double($0.key) - mean) >= distance - 1e-9 }.values.reduce(0, +))
    }

    /// Ranks 1…n, ties sharing the mean of the ranks they span.
    static func midRanks(_ values: [Double]) -> [Double] {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var i = 0
        while i < order.count {
            var j = i
            while j + 1 < order.count && values[order[j + 1]] == values[order[i]] { j += 1 }
            for k in i...j { ranks[order[k]] = Double(i + j) / 2 + 1 }
            i = j + 1
        }
        return ranks
    }

    /// P(X ≥ k) for X ~ Binomial(n, p).
    static func binomialTail(_ n: Int, _ k: Int, _ p: Double) -> Double {
        guard k > 0 else { return 1 }
        return (k...n).reduce(0.0) { $0 + choose(n, $1) * pow(p, Double($1)) * pow(1 - p, Double(n - $1)) }
    }

    static func choose(_ n: Int, _ k: Int) -> Double { factorial(Double(n)) / (factorial(Double(k)) * factorial(Double(n - k))) }
    static func factorial(_ n: Double) -> Double { n <= 1 ? 1 : (2...Int(n)).reduce(1.0) { $0 * Double($1) } }
}
