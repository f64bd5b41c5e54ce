import Foundation

/// A picture's vector as `item_vector` and the index box store it (docs/FORMAT.md §3.3,
/// "Vectors"): `Float32LE(s) ‖ Int8 × 512`, where the unit vector v is quantised as
/// qᵢ = round(vᵢ / s), s = max |vᵢ| / 127. Cosine with a unit query t is s · Σ qᵢ·tᵢ.
public struct IndexVector: Sendable, Equatable {
    /// The scale s, greater than zero.
    public let scale: Float
    /// The quantised components.
    public let components: [Int8]

    /// Quantises `vector`, which must have ``IndexLimits/dimension`` finite components,
    /// not all zero (the indexer's reply checks refuse any other, docs/SEARCH.md §S3.4.3).
    public init(quantising vector: [Float]) {
        precondition(vector.count == IndexLimits.dimension, "a vector has 512 components")
        let norm = vector.reduce(Float(0)) { $0 + $1 * $1 }.squareRoot()
        precondition(norm.isFinite && norm > 0, "a vector is finite and not zero")
        let unit = vector.map { $0 / norm }
        let largest = unit.reduce(Float(0)) { max($0, abs($1)) }
        scale = largest / 127
        components = unit.map { Int8(max(-127, min(127, ($0 / largest * 127).rounded()))) }
    }

    /// Reads a stored vector; nil unless it is ``IndexLimits/vectorSize`` bytes with a
    /// finite scale greater than zero and components within ±127 (the encoder never
    /// writes −128).
    public init?(stored bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard bytes.count == IndexLimits.vectorSize else { return nil }
        let bits = bytes[0..<4].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) }
        let scale = Float(bitPattern: bits)
        guard scale.isFinite && scale > 0, !bytes[4...].contains(0x80) else { return nil }
        self.scale = scale
        components = bytes[4...].map { Int8(bitPattern: $0) }
    }

    /// The stored form.
    public var stored: [UInt8] {
        let bits = scale.bitPattern
        return (0..<4).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) } + components.map { UInt8(bitPattern: $0) }
    }
}
