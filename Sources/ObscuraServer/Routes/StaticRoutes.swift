import Foundation
import Hummingbird

/// The single-page app's files: `/` is `index.html`, `/drop` the drop page `drop.html`,
/// `/app/NAME` any other file of the web root (docs/API.md, "Static files"). The files
/// ship as the package's resources; `OBSCURA_WEB_ROOT` points elsewhere while they are
/// being worked on.
struct StaticRoutes {
    let root: String

    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml", "png": "image/png",
        "ico": "image/x-icon", "json": "application/json", "webmanifest": "application/manifest+json",
    ]

    /// Where Android's share sheet posts what is shared to the installed drop page
    /// (`share_target` in drop.webmanifest); its worker answers it in the phone.
    static let sharePath = "/drop/share"

    func register(on router: Router<GalleryContext>) {
        router.get("/") { _, _ in try file("index.html") }
        // The drop page: its code comes in the fragment, which no request carries.
        router.get("/drop") { _, _ in try file("drop.html") }
        // The drop page as an installable app (docs/PHONE.md §W4.1-§W4.2): its manifest,
        // and its worker at the root, so that its scope may be /drop.
        router.get("/drop.webmanifest") { _, _ in try file("drop.webmanifest") }
        router.get("/drop-sw.js") { _, _ in try file("drop-sw.js") }
        // A share whose post reached the server: the page's worker was not there to take
        // it (not installed, or cleared). Nothing of the post is read or kept (it carries
        // the phone's photos in the clear); the page says they were lost (§W4.6).
        router.post(RouterPath(stringLiteral: Self.sharePath)) { _, _ in
            Response(status: .seeOther, headers: [.location: "/drop?share=none"])
        }
        router.get("/app/**") { request, _ in
            try file(String(request.uri.path.dropFirst("/app/".count)))
        }
    }

    /// The file `name` under the root, refusing anything that could leave it.
    func file(_ name: String) throws -> Response {
        let parts = name.split(separator: "/")
        guard !parts.isEmpty, parts.allSatisfy({ part in
            !part.hasPrefix(".") && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
        }) else { throw APIError.notFound() }
        let path = root + "/" + parts.joined(separator: "/")
        guard let data = FileManager.default.contents(atPath: path) else { throw APIError.notFound() }
        let type = Self.types[(name as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
        return Response(status: .ok, headers: [.contentType: type], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Where the app's files are: `OBSCURA_WEB_ROOT`, else the resource bundle beside
    /// the executable (SwiftPM puts it there).
    static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let root = environment["OBSCURA_WEB_ROOT"], !root.isEmpty { return root }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [
            executable.appendingPathComponent("Obscura_ObscuraServer.resources/web").path,
            Bundle.main.bundleURL.appendingPathComponent("Obscura_ObscuraServer.resources/web").path,
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/index.html") }
    }
}
