import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response fetched with URLSession.
struct FetchedResponse {
    let status: Int
    let headers: [String: String]
    let body: Data

    /// A header, case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Requests through URLSession (FoundationNetworking on Linux), redirects not followed.
enum HTTPClient {
    private final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    static func session(connections: Int = 8) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = connections
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 20
        return URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }

    static func fetch(_ url: URL, method: String = "GET", key: String? = nil, headers: [String: String] = [:],
                      body: Data? = nil, session: URLSession? = nil) async throws -> FetchedResponse {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("manashiki-registry-tests/1.0", forHTTPHeaderField: "User-Agent")
        if let key { request.setValue(key, forHTTPHeaderField: "X-API-Key") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body
            if headers["Content-Type"] == nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        }
        let owned = session == nil ? HTTPClient.session() : nil
        defer { owned?.finishTasksAndInvalidate() }
        let (data, response) = try await (session ?? owned!).data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)"] = "\(value)" }
        return FetchedResponse(status: http.statusCode, headers: fields, body: data)
    }
}
