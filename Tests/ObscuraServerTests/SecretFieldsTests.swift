import Foundation
import Hummingbird
import ObscuraCrypto
import Testing
@testable import ObscuraServer

/// Passwords are read from request bodies straight into zeroing buffers.
@Suite struct SecretFieldsTests {
    static func request(_ body: String) -> Request {
        Request(head: HTTPRequest(method: .post, scheme: "http", authority: testHost, path: "/"),
                body: RequestBody(buffer: ByteBuffer(string: body)))
    }

    static func text(_ bytes: SecureBytes?) -> String? {
        bytes.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
    }

    @Test(arguments: [
        (#"{"password":"plain"}"#, "plain"),
        (#"  { "password" : "with \"quotes\" and \\ slash" }  "#, #"with "quotes" and \ slash"#),
        (#"{"password":"caf\u00e9 \ud83d\ude00"}"#, "café 😀"),
        (#"{"password":"tab\tnew\nline\/"}"#, "tab\tnew\nline/"),
        (#"{"other":"x","password":"last"}"#, "last"),
        (#"{"password":null}"#, nil),
        ("{}", nil),
    ] as [(String, String?)])
    func readsJSONStrings(body: String, expected: String?) async throws {
        let fields = try await SecretFields.json(from: Self.request(body))
        #expect(Self.text(fields["password"]) == expected)
    }

    @Test(arguments: [
        #"{"password":"x""#, #"{"password":1}"#, #"["x"]"#, #"{"password":"x"} trailing"#,
        #"{"password":"\q"}"#, #"{"password":"\ud83d"}"#, "{\"password\":\"raw\u{01}control\"}", "",
    ])
    func refusesMalformedJSON(body: String) async throws {
        await #expect(throws: APIError.self) { try await SecretFields.json(from: Self.request(body)) }
    }

    @Test func readsForms() async throws {
        let fields = try await SecretFields.form(from: Self.request("csrf=abc&password=p%C3%A4ss+word%26%3D&empty="))
        #expect(fields.text("csrf") == "abc")
        #expect(Self.text(fields["password"]) == "päss word&=")
        #expect(fields["empty"]?.count == 0)
        await #expect(throws: APIError.self) { try await SecretFields.form(from: Self.request("password=%zz")) }
    }
}
