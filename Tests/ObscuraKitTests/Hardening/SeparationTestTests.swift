import Testing

/// The audits' statistic itself: its p value is exact, ties included.
@Suite struct SeparationTestTests {
    /// One real slot among ten that is the largest value in every one of three trials:
    /// by chance 2 in 1,000 (either extreme), which separates at the audits' alpha.
    @Test func aRealSlotAlwaysOnTopSeparates() {
        let trials = (0..<3).map { _ in
            SeparationTest.Trial(values: (0..<10).map(Double.init), isReal: (0..<10).map { $0 == 9 })
        }
        let result = SeparationTest.evaluate(trials)
        #expect(abs(result.pRankSum - 0.002) < 1e-9, "\(result)")
        #expect(result.separates(alpha: 0.05 / 6))
    }

    /// Two trials where every slot ties and one where the real slot alone differs: the
    /// chance of that is 1 in 10, not the 0.0027 the normal approximation gave (z = 3.0),
    /// which failed CI runs of the backup audit.
    @Test func oneDistinctValueOnTheRealSlotIsChance() {
        let ties = SeparationTest.Trial(values: Array(repeating: 0, count: 10), isReal: (0..<10).map { $0 == 4 })
        let one = SeparationTest.Trial(values: (0..<10).map { $0 == 4 ? 1 : 0 }, isReal: (0..<10).map { $0 == 4 })
        let result = SeparationTest.evaluate([ties, one, ties])
        #expect(abs(result.z - 3.0) < 1e-9)
        #expect(abs(result.pRankSum - 0.1) < 1e-9, "\(result)")
        #expect(!result.separates(alpha: 0.05 / 6))
    }

    /// Three reals in ten slots over 24 trials (the full audit's size) with nothing to
    /// tell them apart: no separation, and the exact distribution stays cheap.
    @Test func exchangeableSlotsDoNotSeparateAtFullSize() {
        let trials = (0..<24).map { (t: Int) -> SeparationTest.Trial in
            let values: [Double] = (0..<10).map { (i: Int) in Double((i * 7 + t * 3) % 10) }
            let isReal: [Bool] = (0..<10).map { (i: Int) in (i + t) % 10 < 3 }
            return SeparationTest.Trial(values: values, isReal: isReal)
        }
        let result = SeparationTest.evaluate(trials)
        #expect(result.pRankSum > 0.05, "\(result)")
    }
}
