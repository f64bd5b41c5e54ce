import Hummingbird

/// Reading a whole request body under a size limit, the one way every route does it.
enum RequestBody {
    /// The body of `request`, at most `limit` bytes; a longer one is a 413
    /// ("request body too large"), the same answer from every route.
    static func collect(_ request: Request, upTo limit: Int) async throws -> ByteBuffer {
        var request = request
        do {
            return try await request.collectBody(upTo: limit)
        } catch {
            throw APIError(.contentTooLarge, "request body too large")
        }
    }
}
