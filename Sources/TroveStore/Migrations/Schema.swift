import TroveSQLite

/// The workspace schema, as named forward migrations, each in a file of its own in this
/// folder (`MigrationNNNName.swift`). Never edit a shipped migration: append a new one.
package enum Schema {
    package static let migrator = Migrator([
        .init("001-treasures", sql: treasures),
        .init("002-posts-and-review", sql: postsAndReview),
        .init("003-renditions-and-exports", sql: renditionsAndExports),
        .init("004-posts-review-columns", sql: postsReviewColumns),
        .init("005-source-names-and-export-log", sql: sourceNamesAndExportLog),
        .init("006-review-sheet-credits", sql: reviewSheetCredits),
        .init("007-storage-tokens-and-plans", sql: storageTokensAndPlans),
        .init("008-storage-token-triggers-under-upsert", sql: storageTokenTriggersUnderUpsert),
        .init("009-storage-plan-blocks-and-rendition-paths", apply: storagePlanBlocks),
        .init("010-publish-targets", sql: publishTargets),
        .init("011-post-versions-signed-sheets-withdrawn", apply: moderation),
        .init("012-source-columns-and-rendition-failures", sql: sourceColumnsAndDecimalComma),
        .init("015-moderators-sessions-claims", sql: serve),
        .init("016-change-tracking", sql: changeTracking),
        .init("017-status-counters", sql: statusCounters),
        .init("018-shared-state-blocks", apply: stateBlocks),
        .init("019-change-triggers", sql: changeTriggers),
        .init("020-export-objects", apply: exportObjects),
        .init("021-published-counts", sql: publishedCounts),
        .init("022-posts-exif-gps-problem", sql: postsEXIFGPSProblem),
        .init("023-sources-relative-to-the-workspace", apply: relativeSources),
        .init("024-bucket-download-tokens", apply: bucketTokens),
        .init("025-live-posts", sql: livePosts),
        .init("026-trail-kinds-actions-and-claim-pages", sql: moderationRecords),
        .init("027-treasures-by-source", sql: treasuresBySource),
        .init("028-redaction-boxes", sql: redaction),
        .init("029-single-use-sign-in-links-and-idle-sessions", sql: signInLinksAndIdleSessions),
        .init("030-photo-files", sql: photoFiles),
    ])

    /// A random version-4 UUID from SQLite's generator (seeded by the OS), for download
    /// tokens: never derived from content, so it cannot be guessed from the object.
    static let randomUUID = """
        lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4'
          || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + abs(random() % 4), 1)
          || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))
        """
}
