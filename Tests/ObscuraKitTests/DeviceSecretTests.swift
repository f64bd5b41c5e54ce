import Foundation
import ObscuraCrypto
import Testing
@testable import ObscuraKit
@testable import ObscuraKeys

@Suite struct DeviceSecretTests {
    @Test func createdWithPrivateModes() throws {
        let root = try TestRoot()
        let secret = try root.secrets.loadOrCreate()
        #expect(secret.count == 32)
        let file = try FileManager.default.attributesOfItem(atPath: root.secrets.path)
        let dir = try FileManager.default.attributesOfItem(atPath: (root.secrets.path as NSString).deletingLastPathComponent)
        #expect((file[.posixPermissions] as? Int) == 0o600)
        #expect((dir[.posixPermissions] as? Int) == 0o700)
        #expect(try root.secrets.loadOrCreate() == secret)
    }

    @Test func defaultLocationFollowsXDG() {
        #expect(DeviceSecretStore.defaultStore(environment: ["XDG_CONFIG_HOME": "/c"]).path == "/c/obscura/device-secret")
        #expect(DeviceSecretStore.defaultStore(environment: ["HOME": "/h"]).path == "/h/.config/obscura/device-secret")
    }

    @Test func credentialIsDomainSeparated() {
        let secret = SecureBytes(copying: Array(repeating: UInt8(1), count: 32))
        let credential = DeviceSecretStore.credential(from: secret)
        #expect(credential.count == 32)
        #expect(credential != secret)
        #expect(DeviceSecretStore.credential(from: secret) == credential)
    }

    @Test func crockfordRoundTripAndLenientDecoding() throws {
        let secret = SecureBytes(copying: (0..<32).map { UInt8($0 * 7 & 0xFF) })
        let text = Crockford32.encode(secret)
        #expect(text.count == 52)
        #expect(Crockford32.decode(text, byteCount: 32) == secret)
        // Lower case, O for 0, I and L for 1, dashes and spaces.
        var lenient = text.withUnsafeBytes { Array($0) }.map { c -> UInt8 in
            switch c {
            case UInt8(ascii: "0"): return UInt8(ascii: "o")
            case UInt8(ascii: "1"): return UInt8(ascii: "l")
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c + 32
            default: return c
            }
        }
        lenient.insert(UInt8(ascii: "-"), at: 5)
        lenient.insert(UInt8(ascii: " "), at: 11)
        #expect(Crockford32.decode(SecureBytes(copying: lenient), byteCount: 32) == secret)
        #expect(Crockford32.decode(SecureBytes(copying: Array("U".utf8)), byteCount: 32) == nil)
        #expect(Crockford32.decode(SecureBytes(copying: text.withUnsafeBytes { Array($0.dropLast()) }), byteCount: 32) == nil)
    }

    @Test func knownEncoding() {
        // "f" is 0x66 = 01100 110(00): symbols 12 and 24 -> "CR".
        let text = Crockford32.encode(SecureBytes(copying: [0x66]))
        #expect(text.withUnsafeBytes { Array($0) } == Array("CR".utf8))
    }
}
