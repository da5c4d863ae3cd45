import TroveImaging
import TroveSQLite

/// The versions of the C libraries trove runs on, for `trove --version`.
public enum LibraryVersions {
    /// SQLite's run-time version (`sqlite3_libversion`).
    public static var sqlite: String { Database.libraryVersion }
    /// libjpeg-turbo's version, from the headers trove was built with.
    public static var jpeg: String { CodecVersions.jpeg }
    /// libpng's run-time version.
    public static var png: String { CodecVersions.png }
}
