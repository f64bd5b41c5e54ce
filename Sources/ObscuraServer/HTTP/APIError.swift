import Foundation
import Hummingbird

/// An API failure: a status and a message fit to show, sent as `{"error": message}`
/// (docs/API.md). Messages never carry a secret.
struct APIError: HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String
    /// Extra headers (Retry-After, Content-Range).
    var headers: HTTPFields = [:]
    /// Seconds to wait, for 429 (also in `Retry-After`).
    var retryAfter: Int?
    /// Which of several answers with one status this is, for a page that words each
    /// its own way (docs/API.md, "Passkeys": `nameTaken`, `limit`, `opensAVault`).
    var reason: String?

    init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    /// The session has no unlocked vault: the app shows the unlock page.
    static let locked = APIError(.unauthorized, "locked")
    static let csrf = APIError(.forbidden, "missing or wrong CSRF token")
    /// The request has no session: only the launch's access token makes one.
    static let noSession = APIError(.unauthorized, "no session: open the link that `obscura serve` printed")
    static func notFound(_ what: String = "not found") -> APIError { APIError(.notFound, what) }
    static func badRequest(_ why: String) -> APIError { APIError(.badRequest, why) }
    /// The progressive delay on failed unlocks is running.
    static func tooManyAttempts(seconds: Int) -> APIError {
        var error = APIError(.tooManyRequests, "too many failed attempts; try again in \(seconds) s",
                             headers: [.retryAfter: String(seconds)])
        error.retryAfter = seconds
        return error
    }

    /// This error, telling the client to wait `seconds` before the next password check
    /// (a wrong password that started the delay), when there is anything to wait.
    func waiting(_ seconds: Double) -> APIError {
        guard seconds > 0 else { return self }
        var error = self
        let whole = Int(seconds.rounded(.up))
        error.retryAfter = whole
        error.headers[.retryAfter] = String(whole)
        return error
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try JSON.response(ErrorBody(error: message, retryAfter: retryAfter, reason: reason), status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}

/// The JSON of an error answer.
private struct ErrorBody: Encodable {
    var error: String
    var retryAfter: Int?
    var reason: String?
}

/// JSON in and out of the API.
enum JSON {
    /// Largest JSON request body (docs/API.md).
    static let maximumBodySize = 64 << 10

    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Decodes a JSON body of at most ``maximumBodySize`` bytes.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let buffer = try await RequestBody.collect(request, upTo: maximumBodySize)
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch {
            throw APIError.badRequest("malformed JSON body")
        }
    }

    static func noContent() -> Response { Response(status: .noContent) }
}

extension APIError {
    /// The API's answer to an error from the vault engine.
    init(_ error: Error) {
        switch error {
        case let error as APIError:
            self = error
        case let error as VaultError:
            switch error {
            case .locked: self = .locked
            case .wrongPassword, .wrongFolderPassword: self.init(.unauthorized, error.description)
            case .noSuchItem, .noSuchFolder: self.init(.notFound, error.description)
            case .folderExists, .folderNotEmpty, .notInTrash, .inTrash, .passwordInUse, .noFreeSlot: self.init(.conflict, error.description)
            case .invalidName, .folderIntoItself, .invalidCursor, .invalidSetting, .nestedProtectedFolder: self.init(.badRequest, error.description)
            case .folderLocked: self.init(.forbidden, error.description)
            case .ended: self.init(.gone, error.description)
            case .invalidEnd: self.init(.badRequest, error.description)
            case .passkeyLimit, .passkeyNameTaken, .passkeyOpensAVault:
                self.init(.conflict, error.description)
                reason = switch error {
                case .passkeyLimit: "limit"
                case .passkeyNameTaken: "nameTaken"
                default: "opensAVault"
                }
            case .invalidPasskeyName: self.init(.unprocessableContent, error.description)
            case .noSuchPasskey: self.init(.notFound, error.description)
            default: self.init(.internalServerError, error.description)
            }
        case let error as NoteError:
            self.init(.badRequest, error.description)
        case let error as PasskeyEnrolError:
            self.init(.unprocessableContent, error.description)
        case CatalogError.closed:
            self = .locked
        case let error as ObscuraError:
            self.init(.internalServerError, error.description)
        default:
            self.init(.internalServerError, "internal error")
        }
    }
}

import ObscuraCrypto
import ObscuraKeys
import ObscuraKit
import ObscuraCatalog
