import ObscuraCrypto

/// Slot file sizes (docs/FORMAT.md §3.4).
///
/// Sizes come in tiers: tier t is the range [base·2^t, base·2^(t+1)). A slot's size is
/// drawn uniformly from the current tier when it is first written and pinned after. When
/// any slot needs more room, every slot moves to the smallest tier whose lower bound fits
/// the need, each drawing a new size there, so all slots keep one size distribution.
public enum SlotSizing {
    /// Lower bound of tier 0: 256 KiB, room for an empty catalog many times over.
    public static let base = 256 * 1024

    /// The byte range of `tier`.
    public static func range(ofTier tier: Int) -> Range<Int> {
        (base << tier)..<(base << (tier + 1))
    }

    /// The tier that holds a file of `size` bytes (sizes below the base count as tier 0).
    public static func tier(containing size: Int) -> Int {
        var t = 0
        while size >= base << (t + 1) { t += 1 }
        return t
    }

    /// The smallest tier at least `minimum` whose every size can hold `needed` bytes.
    public static func tier(fitting needed: Int, atLeast minimum: Int) -> Int {
        var t = minimum
        while range(ofTier: t).lowerBound < needed { t += 1 }
        return t
    }

    /// A size drawn uniformly from `tier`.
    public static func drawSize(inTier tier: Int, using random: RandomSource) -> Int {
        random.uniform(in: range(ofTier: tier))
    }
}
