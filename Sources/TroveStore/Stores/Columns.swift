import TroveSQLite

// The columns stores read, one enum per table: a record decodes through its table's enum,
// so a misspelled column does not build, and a column a statement does not select is a
// thrown `RowDecodingError` naming the table and column. Besides the table's own columns,
// an enum names the values its queries compute under an alias (a post's `version`).

/// `treasures`, with `treasure_geohashes.geohash`, `sources.file` and the aliases of
/// validate's and import's scans.
package enum TreasureColumn: String, TableColumn {
    package static let table = "treasures"
    case key, name, lat, lon, description, image, extra, geohash, file, source
    case sourceLine = "source_line"
    /// Whether another treasure has the same name (validate's scan).
    case named
    /// Whether its row is gone from its file (validate's scan).
    case gone
    case id, path, width, height
}

/// `posts`, with the aliases its queries compute.
package enum PostColumn: String, TableColumn {
    package static let table = "posts"
    case id, user, lat, lon, date, description, status, photo, geohash, source, signals
    /// The origin the post was imported from (a file's identity or a live location).
    case origin
    case signalNames = "signal_names"
    case photoReference = "photo_ref"
    case photoHash = "photo_hash"
    case photoPerceptualHash = "photo_phash"
    case photoWidth = "photo_width"
    case photoHeight = "photo_height"
    case photoProblem = "photo_problem"
    case exifLatitude = "exif_lat"
    case exifLongitude = "exif_lon"
    case exifTime = "exif_time"
    case exifGPSProblem = "exif_gps_problem"
    case statusNote = "status_note"
    case importedAt = "imported_at"
    case updatedAt = "updated_at"
    case contentHash = "content_hash"
    /// The boxes hidden in its published photo (canonical `RedactionBox` text).
    case redaction
    /// The post's version (`PostVersion.sql`).
    case version
    /// Whether it has a photo.
    case hasPhoto = "has_photo"
}

/// `post_versions`.
package enum PostVersionColumn: String, TableColumn {
    package static let table = "post_versions"
    case version, user, lat, lon, description, date
    case photoReference = "photo_ref"
    case photoHash = "photo_hash"
    case seenAt = "seen_at"
    case postID = "post_id"
    case redaction
}

/// `decisions`, with the post's status and version where a query joins them.
package enum DecisionColumn: String, TableColumn {
    package static let table = "decisions"
    case seq, at, moderator, reason, note, sheet, version, status, secret
    case kind, batch, undoes, redaction
    case byUser = "by_user"
    case postID = "post_id"
    case fromStatus = "from_status"
    case toStatus = "to_status"
    case appliedBy = "applied_by"
    case decidedAt = "decided_at"
    case postStatus = "post_status"
    case postVersion = "post_version"
}

/// `moderators`, `claims` and the count of a moderator's sessions.
package enum ModeratorColumn: String, TableColumn {
    package static let table = "moderators"
    case name, sessions, moderator, until, since, page
    case addedAt = "added_at"
    case releasedBy = "released_by"
    case postID = "post_id"
    case linkUntil = "link_until"
    case linkUsedAt = "link_used_at"
    case seenAt = "seen_at"
}

/// `publish_targets`, `publish_steps`, `publish_log` and the plan's counts.
package enum PublishColumn: String, TableColumn {
    package static let table = "publish_targets"
    case name, bucket, layout, target, at, kind, seq, token, body, inputs, entries, source
    case paths, objects, changed, removed, uploaded, retokened, deleted, steps
    case databaseURL = "database_url"
    case isDefault = "is_default"
    case publishedAt = "published_at"
    case changeSeq = "change_seq"
}

/// `export_log`, `exports` and the export states' blocks.
package enum ExportColumn: String, TableColumn {
    package static let table = "export_log"
    case id, layout, at, out, kind, base, generation, records, paths, changed, removed
    case inputs, objects, entries, first, block, source, reason, user, columns, name
    case changeSeq = "change_seq"
    case isKept = "is_kept"
    case ownerKey = "owner_key"
}

/// `renditions`, `storage_tokens` and the counts of images.
package enum RenditionColumn: String, TableColumn {
    package static let table = "renditions"
    case key, name, source, settings, path, width, height, bytes, hash, token
    case treasures, posts
    /// Why `images` could not read its source (`rendition_failures`).
    case reason
    /// How many treasures name a remote image (images' count of what it skips).
    case remote
    case ownerKind = "owner_kind"
    case ownerKey = "owner_key"
    case sourceHash = "source_hash"
}

/// `record_changes` and the consumers' clock values.
package enum ChangeColumn: String, TableColumn {
    package static let table = "record_changes"
    case key, seq, inputs
}

/// `post_photo_objects`: the Storage objects pulled posts' photos came from, with the
/// aliases of the ranges a listing covers.
package enum PhotoObjectColumn: String, TableColumn {
    package static let table = "post_photo_objects"
    case bucket, name, generation, md5, fingerprint, file, bytes, stale
    /// The first and last object names of a bucket (a listing's range).
    case first, last
}

/// `photo_files`: what post imports learned of the photo files they read.
package enum PhotoFileColumn: String, TableColumn {
    package static let table = "photo_files"
    case path, stamp, fingerprint, phash, width, height, problem
    case exifLatitude = "exif_lat"
    case exifLongitude = "exif_lon"
    case exifTime = "exif_time"
    case exifGPSProblem = "exif_gps_problem"
}

/// `post_pulls`: each live location's pulls.
package enum PostPullColumn: String, TableColumn {
    package static let table = "post_pulls"
    case id, origin
    case startedAt = "started_at"
    case completedAt = "completed_at"
    case signalsDue = "signals_due"
}

/// `post_pull_pages`: the pages of a location's last whole read.
package enum PostPullPageColumn: String, TableColumn {
    package static let table = "post_pull_pages"
    case start, hash, digest, passwords, emails, names, clock
}

/// A row a store could not decode: the workspace holds what this version of trove does not
/// read (exit 4 at the command line, like any other workspace problem).
public typealias RecordDecodingError = RowDecodingError
