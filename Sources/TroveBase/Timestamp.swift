import Foundation

/// The current time as ISO 8601 in UTC, second precision: how the workspace records
/// imports, decisions and exports.
package func timestamp(_ date: Date = Date()) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.string(from: date)
}
