/// The two compact forms a publish target's state is kept in: its database paths with
/// their value hashes, and its Storage objects with their tokens.
package enum PublishStateKind: String, Sendable {
    case paths
    case objects
}

/// Steps run in kind order; within a kind, in the order planned.
package enum PublishStepKind: String, CaseIterable {
    case upload
    case token
    case update
    case delete
    case revoke

    /// The first sequence number of the kind's steps.
    package var base: Int64 {
        Int64(Self.allCases.firstIndex(of: self) ?? 0) << 40
    }
}

/// One step of a recorded publish plan.
package struct PublishStep: Equatable {
    package var seq: Int64
    /// Nil for a kind this version does not know.
    package var kind: PublishStepKind?
    /// The object (all but update steps); empty when there is none.
    package var name: String
    /// Its download tokens (upload, token and revoke steps).
    package var token: String?
    /// The multi-path update (update steps), when read.
    package var body: [UInt8]?
}
