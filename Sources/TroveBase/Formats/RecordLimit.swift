/// The longest record trove reads from a file: a CSV row, a line of newline-delimited
/// JSON, one post of an export, one GeoJSON feature. 10 MB, the longest string the
/// Realtime Database stores: a longer record could not be published whole, and reading
/// one costs memory in proportion. A longer record is an error naming its file and line,
/// found before more than this much of it is held.
package enum RecordLimit {
    package static let bytes = FirebaseLimits.maximumStringBytes
    /// The limit as messages say it.
    package static let words = "10 MB"
}
