import TroveBase
import TroveHTTP

/// The message in an error answer: Cloud Storage's `{"error": {"message": …}}`, the
/// Realtime Database's `{"error": "…"}`, or the start of any other body, made printable.
func serverMessage(_ body: [UInt8]) -> String {
    var parser = JSONParser(body)
    if let value = try? parser.parseValue(), let error = value["error"] {
        if let text = error.stringValue { return printable(text) }
        if let text = error["message"]?.stringValue { return printable(text) }
    }
    let text = String(decoding: body.prefix(300), as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
    return printable(text)
}

/// `HTTP 403: message`, with the attempts when there were several, for an error message.
func describe(_ outcome: HTTPOutcome) -> String {
    switch outcome {
    case .response(let response, let attempts):
        let message = serverMessage(response.body)
        return "HTTP \(response.status)" + (message.isEmpty ? "" : ": \(message)")
            + (attempts > 1 ? " (after \(attempts) attempts)" : "")
    case .failed(let message, let attempts):
        return printable(message) + (attempts > 1 ? " (after \(attempts) attempts)" : "")
    }
}

extension HTTPOutcome {
    /// The status of an answer, or nil when there was none.
    package var status: Int? {
        guard case .response(let response, _) = self else { return nil }
        return response.status
    }

    /// Whether the request never reached the server or could not be sent.
    var isConnectionFailure: Bool {
        guard case .failed(_, let attempts) = self else { return false }
        return attempts > 0
    }
}
