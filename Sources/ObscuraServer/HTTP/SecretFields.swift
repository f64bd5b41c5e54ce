import Foundation
import Hummingbird
import ObscuraCrypto

/// Reads the string fields of a small request body straight into zeroing buffers, so a
/// password never passes through a Swift `String` (docs/SECURITY.md, "Key hygiene":
/// passwords and keys never become a `String`), and wipes the body afterwards.
///
/// Two encodings: a flat JSON object whose values are strings or null (the API's
/// password routes), and `application/x-www-form-urlencoded` (the export form).
struct SecretFields {
    private var fields: [String: SecureBytes]

    /// The secret field `name`, if present.
    subscript(name: String) -> SecureBytes? { fields[name] }

    /// A non-secret field (a folder path, a CSRF token) as text.
    func text(_ name: String) -> String? {
        fields[name].map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
    }

    /// A field that must be present and non-empty.
    func require(_ name: String) throws -> SecureBytes {
        guard let value = fields[name], value.count > 0 else { throw APIError.badRequest("\(name) is required") }
        return value
    }

    /// Reads and parses a JSON object body.
    static func json(from request: Request) async throws -> SecretFields {
        try await parse(request) { bytes in
            var parser = JSONFields(bytes)
            return try parser.object()
        }
    }

    /// Reads and parses a URL-encoded form body.
    static func form(from request: Request) async throws -> SecretFields {
        try await parse(request) { bytes in try formFields(bytes) }
    }

    private static func parse(_ request: Request, _ parser: (UnsafeRawBufferPointer) throws -> [String: SecureBytes]) async throws -> SecretFields {
        var buffer = try await RequestBody.collect(request, upTo: JSON.maximumBodySize)
        defer { buffer.withUnsafeMutableReadableBytes { secureZero($0.baseAddress!, $0.count) } }
        return SecretFields(fields: try buffer.withUnsafeReadableBytes { try parser($0) })
    }

    private static func formFields(_ bytes: UnsafeRawBufferPointer) throws -> [String: SecureBytes] {
        var out: [String: SecureBytes] = [:]
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(decoding: try percentDecoded(parts[0]), as: UTF8.self)
            out[name] = SecureBytes(copying: parts.count > 1 ? try percentDecoded(parts[1]) : [])
        }
        return out
    }

    private static func percentDecoded(_ bytes: some Collection<UInt8>) throws -> [UInt8] {
        var out = [UInt8]()
        var i = bytes.startIndex
        while i != bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if b == UInt8(ascii: "%") {
                let h = bytes.index(after: i)
                guard h != bytes.endIndex, bytes.index(after: h) != bytes.endIndex,
                      let hi = hexValue(bytes[h]), let lo = hexValue(bytes[bytes.index(after: h)])
                else { throw APIError.badRequest("malformed form body") }
                out.append(hi << 4 | lo)
                i = bytes.index(after: h)
            } else {
                out.append(b)
            }
            i = bytes.index(after: i)
        }
        return out
    }

    fileprivate static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// A strict parser for one flat JSON object of string (or null) values (RFC 8259).
private struct JSONFields {
    let bytes: UnsafeRawBufferPointer
    var i = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func object() throws -> [String: SecureBytes] {
        var out: [String: SecureBytes] = [:]
        try expect(UInt8(ascii: "{"))
        if peek() == UInt8(ascii: "}") { i += 1; return try end(out) }
        while true {
            let name = String(decoding: try string(), as: UTF8.self)
            try expect(UInt8(ascii: ":"))
            if peek() == UInt8(ascii: "n") {
                try literal("null")
            } else {
                out[name] = SecureBytes(copying: try string())
            }
            switch next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "}"): return try end(out)
            default: throw malformed
            }
        }
    }

    private var malformed: APIError { APIError.badRequest("malformed JSON body: expected an object of strings") }

    private mutating func end(_ out: [String: SecureBytes]) throws -> [String: SecureBytes] {
        skipSpace()
        guard i == bytes.count else { throw malformed }
        return out
    }

    private mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    private mutating func peek() -> UInt8? {
        skipSpace()
        return i < bytes.count ? bytes[i] : nil
    }

    private mutating func next() -> UInt8? {
        let c = peek()
        i += 1
        return c
    }

    private mutating func expect(_ c: UInt8) throws {
        guard next() == c else { throw malformed }
    }

    private mutating func literal(_ word: String) throws {
        for c in word.utf8 {
            guard i < bytes.count, bytes[i] == c else { throw malformed }
            i += 1
        }
    }

    /// A string literal's UTF-8 bytes, escapes resolved.
    private mutating func string() throws -> [UInt8] {
        try expect(UInt8(ascii: "\""))
        var out = [UInt8]()
        while i < bytes.count {
            let c = bytes[i]
            i += 1
            switch c {
            case UInt8(ascii: "\""):
                return out
            case UInt8(ascii: "\\"):
                guard i < bytes.count else { throw malformed }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"): try unicodeEscape(into: &out)
                default: throw malformed
                }
            case 0..<0x20:
                throw malformed
            default:
                out.append(c)
            }
        }
        throw malformed
    }

    private mutating func hex4() throws -> UInt32 {
        guard i + 4 <= bytes.count else { throw malformed }
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let d = SecretFields.hexValue(bytes[i]) else { throw malformed }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    private mutating func unicodeEscape(into out: inout [UInt8]) throws {
        var scalar = try hex4()
        if (0xD800..<0xDC00).contains(scalar) {
            // A high surrogate must be followed by an escaped low one.
            guard i + 2 <= bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else { throw malformed }
            i += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw malformed }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let u = Unicode.Scalar(scalar) else { throw malformed }
        out += Array(String(Character(u)).utf8)
    }
}
