import Foundation
import Testing

@testable import TroveCLI
@testable import TroveCommandLine
@_spi(Testing) @testable import TroveStore

/// Moderation a moderator can trust: decisions bound to the version seen, review sheets
/// that cannot be forged, two moderators without noise, users keyed by id, posts
/// imported record by record, posts their users withdrew.
@Suite struct ModerationTrustTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
    }

    /// An app-shaped flat export: `Locations/{id}` with a uid and a display name.
    static func export(_ posts: [(id: String, text: String, lat: Double)]) -> String {
        let items = posts.map { post in
            """
            "\(post.id)": {"uid": "uid-\(post.id)", "userName": "Maria García",
              "Latitude": \(post.lat), "Longitude": -74.0, "Date": "2022-01-24",
              "LocationDescription": "\(post.text)"}
            """
        }
        return "{\"Locations\": {" + items.joined(separator: ",\n") + "}}\n"
    }

    func importExport(_ posts: [(id: String, text: String, lat: Double)]) throws -> RunResult {
        try sandbox.write("export.json", Self.export(posts))
        return sandbox.run("import", "posts", "export.json")
    }

    func log() throws -> [[String: Any]] {
        let text = sandbox.run("review", "log", "--format", "json").stdout
        return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] ?? []
    }

    func status(_ id: String) -> String {
        let shown = sandbox.run("review", "show", id, "--format", "json").stdout
        let object = try? JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any]
        return object?["status"] as? String ?? "?"
    }

    func version(_ id: String) -> String {
        let shown = sandbox.run("review", "show", id, "--format", "json").stdout
        let object = try? JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any]
        return object?["version"] as? String ?? "?"
    }

    static let original: [(id: String, text: String, lat: Double)] = [
        ("p1", "cans by the river", 40.7128), ("p2", "bottles", 40.7200),
        ("p3", "crisps", 40.7300),
    ]
    /// p1's text became a spam link, p2 moved 300 m north, p3 unchanged.
    static let edited: [(id: String, text: String, lat: Double)] = [
        ("p1", "cheap pills http://spam.example", 40.7128), ("p2", "bottles", 40.7227),
        ("p3", "crisps", 40.7300),
    ]

    // MARK: - 1. A decision approves content the moderator never saw

    @Test func aSheetsDecisionOnAPostEditedSinceIsRefusedAndThePostStaysPending() throws {
        #expect(try importExport(Self.original).status == 0)
        #expect(sandbox.run("review", "sheet", "--out", "sheet.html", "--for", "alex").status == 0)
        let sheet = try SheetPage(path: sandbox.path("sheet.html"))
        #expect(try importExport(Self.edited).status == 0)
        try sandbox.write(
            "decisions.json",
            try sheet.file([
                .init(id: "p1", action: "approve"), .init(id: "p2", action: "approve"),
                .init(id: "p3", action: "approve"),
            ]))
        for run in 1...2 {
            let applied = sandbox.run("review", "apply", "decisions.json")
            #expect(applied.status == 1, "run \(run)")
            #expect(applied.stderr.contains("p1 changed since you saw it"), "\(applied.stderr)")
            #expect(applied.stderr.contains("p2 changed since you saw it"))
            #expect(status("p1") == "pending" && status("p2") == "pending")
            #expect(status("p3") == "approved")
            let entries = try log()
            #expect(entries.count == 1 && entries.first?["id"] as? String == "p3")
            #expect(entries.first?["version"] as? String == sheet.posts["p3"]?.version)
        }
        // show puts what the sheet showed beside what is there now.
        let shown = sandbox.run("review", "show", "p1").stdout
        #expect(shown.contains("then: cans by the river"), "\(shown)")
        #expect(shown.contains("now:  cheap pills http://spam.example"))
        let moved = sandbox.run("review", "show", "p2@" + (sheet.posts["p2"]?.version ?? "")).stdout
        #expect(moved.contains("then: 40.720000, -74.000000"), "\(moved)")
        #expect(moved.contains("now:  40.722700, -74.000000 (moved 300 m)"))
    }

    @Test func theCLIDecidesOnTheVersionShownAndRefusesAStaleOne() throws {
        #expect(try importExport(Self.original).status == 0)
        let seen = version("p1")
        #expect(sandbox.run("review", "show", "p1").stdout.contains("version:     \(seen)"))
        #expect(try importExport(Self.edited).status == 0)
        for run in 1...2 {
            for arguments in [["p1@\(seen)"], ["p1", "--version", seen]] {
                let refused = sandbox.run(["review", "approve"] + arguments + ["--as", "alex"])
                #expect(refused.status == 1, "run \(run): \(arguments)")
                #expect(refused.stderr.contains("p1 changed since you saw it (version \(seen)"))
                // Force overrides another moderator, never a change nobody has seen.
                let forced = sandbox.run(
                    ["review", "reject", "--reason", "spam", "--force", "--as", "alex"] + arguments)
                #expect(forced.status == 1)
            }
            #expect(status("p1") == "pending")
            #expect(try log().isEmpty)
        }
        // The current version, named or not, is decided.
        let current = version("p1")
        #expect(current != seen)
        #expect(sandbox.run("review", "approve", "p1@\(current)", "--as", "alex").status == 0)
        #expect(sandbox.run("review", "approve", "p2", "--as", "alex").status == 0)
        let entries = try log()
        #expect(entries.map { $0["version"] as? String } == [current, version("p2")])
        #expect(
            sandbox.run("review", "approve", "p3", "--version", "nothex", "--as", "a").status == 2)
    }

    @Test func anEditAfterApprovalReopensThePostAndTheExportDropsIt() throws {
        #expect(try importExport(Self.original).status == 0)
        #expect(sandbox.run("review", "approve", "p1", "p3", "--as", "alex").status == 0)
        #expect(
            sandbox.run("export", "--layout", "trashmapper", "--out", "before.json").status == 0)
        let before = try String(contentsOfFile: sandbox.path("before.json"), encoding: .utf8)
        #expect(before.contains("\"p1\"") && before.contains("\"p3\""))
        for run in 1...2 {
            let reimported = try importExport(Self.edited)
            #expect(reimported.status == 0)
            #expect(
                reimported.stderr.contains("post p1 changed after a decision") == (run == 1),
                "\(reimported.stderr)")
            #expect(status("p1") == "pending" && status("p3") == "approved")
            #expect(
                sandbox.run("export", "--layout", "trashmapper", "--out", "after.json").status
                    == 0)
            let after = try String(contentsOfFile: sandbox.path("after.json"), encoding: .utf8)
            #expect(!after.contains("\"p1\"") && after.contains("\"p3\""))
            #expect(!after.contains("spam.example"))
        }
    }

    @Test func theQueueRefusesAPostReImportedWhileOnScreen() throws {
        #expect(try importExport(Self.original).status == 0)
        let workspace = try Workspace(path: sandbox.workspace)
        // On p1's screen the export changes under the moderator, who then presses a; the
        // queue moves on to p2, which is approved as drawn.
        var keys: [UInt8] = Array("aaq".utf8)
        var reimported = false
        let out = CommandOutput(capturingAsTerminal: true)
        let session = ReviewSession(
            workspace: workspace, moderator: "kim", output: out,
            style: .init(colour: false, columns: 80, rows: 40),
            readKey: { [sandbox] in
                if !reimported {
                    reimported = true
                    try? sandbox.write("export.json", Self.export(Self.edited))
                    sandbox.run("import", "posts", "export.json")
                }
                return keys.isEmpty ? nil : keys.removeFirst()
            })
        #expect(try session.run() == .success)
        #expect(out.text.contains("p1 changed since you saw it"), "\(out.text)")
        #expect(status("p1") == "pending")
        // p2 moved too, after p1 was drawn and before p2 was: p2 is approved as drawn.
        #expect(status("p2") == "approved")
        #expect(try log().map { $0["id"] as? String } == ["p2"])
    }

    // MARK: - 2. Display names become user keys

    @Test(arguments: [
        #""uid": "kV3nq9XbZ2d8yHcWmP4tRfLsJ1a2", "userName": "Maria García""#,
        #""userName": "Maria García", "uid": "kV3nq9XbZ2d8yHcWmP4tRfLsJ1a2""#,
        #""displayName": "Maria García", "userId": "kV3nq9XbZ2d8yHcWmP4tRfLsJ1a2", "name": "Maria García""#,
        #""name": "Maria García", "user": "kV3nq9XbZ2d8yHcWmP4tRfLsJ1a2", "displayName": "Maria García""#,
    ])
    func theUserKeyIsTheUsersIdInBothShapesWhateverTheOrder(fields: String) throws {
        let position = #""Latitude": 40.7, "Longitude": -74.0, "Date": "2022-01-24""#
        let uid = "kV3nq9XbZ2d8yHcWmP4tRfLsJ1a2"
        // Flat, and nested under Users/{uid} whose record names another uid and the name.
        let flat = "{\"Locations\": {\"f1\": {\(fields), \(position)}}}"
        let nested =
            "{\"Users\": {\"\(uid)\": {\"userName\": \"Maria García\", \"TaggedLocations\": "
            + "{\"n1\": {\(fields.replacingOccurrences(of: uid, with: "someone-else")), "
            + "\(position)}}}}}"
        try sandbox.write("flat.json", flat)
        try sandbox.write("nested.json", nested)
        for run in 1...2 {
            for file in ["flat.json", "nested.json"] {
                let result = sandbox.run("import", "posts", file)
                #expect(result.status == 0, "run \(run) \(file): \(result.stderr)")
            }
            let listed = sandbox.run("review", "list", "--user", uid, "--format", "json").stdout
            let posts =
                try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]]
            #expect(posts?.map { $0["id"] as? String ?? "" }.sorted() == ["f1", "n1"], "\(listed)")
            #expect(posts?.allSatisfy { $0["user"] as? String == uid } == true)
        }
        #expect(sandbox.run("review", "approve", "f1", "n1", "--as", "alex").status == 0)
        #expect(sandbox.run("export", "--layout", "trashmapper", "--out", "tree.json").status == 0)
        let tree = try String(contentsOfFile: sandbox.path("tree.json"), encoding: .utf8)
        #expect(tree.contains("\"\(uid)\": {"))
        #expect(!tree.contains("Maria") && !tree.contains("someone-else"))
        // Not in the workspace either.
        for suffix in ["", "-wal"] {
            let bytes =
                (try? Data(contentsOf: URL(fileURLWithPath: sandbox.workspace + suffix)))
                ?? Data()
            #expect(bytes.range(of: Data("Maria".utf8)) == nil)
        }
    }

    @Test func aCSVWithADisplayNameAndAnIdColumnKeysByTheId() throws {
        try sandbox.write(
            "posts.csv",
            "id,userName,lat,lon,uid\nc1,Chen Haddad,40.7,-74,u-chen\nc2,Chen Haddad,40.8,-74,\n")
        for _ in 1...2 {
            let result = sandbox.run("import", "posts", "posts.csv")
            #expect(result.status == 0)
            let listed = sandbox.run("review", "list", "--format", "csv").stdout
            #expect(listed.contains("c1,u-chen,"))
            #expect(listed.contains("c2,,"))
            #expect(!listed.contains("Chen"))
        }
    }

    // MARK: - 3. Two moderators produce noise

    @Test func theTwoModeratorDay() throws {
        let posts = (1...12).map {
            (id: "p\($0)", text: "post \($0)", lat: 40.70 + Double($0) / 100)
        }
        #expect(try importExport(posts).status == 0)
        // Both make a sheet of the same queue.
        #expect(sandbox.run("review", "sheet", "--out", "alex.html", "--for", "alex").status == 0)
        #expect(sandbox.run("review", "sheet", "--out", "bob.html", "--for", "bob").status == 0)
        let alex = try SheetPage(path: sandbox.path("alex.html"))
        let bob = try SheetPage(path: sandbox.path("bob.html"))
        #expect(alex.sheet != bob.sheet)
        // Alex decides p1–p8: approves p1–p6, rejects p7 and p8. Bob decides p3–p12: the
        // same as Alex on p3–p6, approves p7 and p8 (the disagreements), and p9–p12.
        let alexMade = (1...8).map { n -> SheetPage.Made in
            n <= 6
                ? .init(id: "p\(n)", action: "approve")
                : .init(id: "p\(n)", action: "reject", reason: "spam")
        }
        let bobMade = (3...12).map { SheetPage.Made(id: "p\($0)", action: "approve") }
        try sandbox.write("alex.json", try alex.file(alexMade))
        try sandbox.write("bob.json", try bob.file(bobMade))

        let first = sandbox.run("review", "apply", "alex.json", environment: ["USER": "lead"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try log().count == 8)
        #expect(try log().allSatisfy { $0["moderator"] as? String == "alex" })

        for run in 1...2 {
            let second = sandbox.run("review", "apply", "bob.json", "-q")
            #expect(second.status == 1, "run \(run)")
            // The two real disagreements are listed, naming Alex; the same decisions are not.
            #expect(
                second.stderr.contains("p7 is now rejected (you saw it pending): decided by alex"))
            #expect(
                second.stderr.contains("p8 is now rejected (you saw it pending): decided by alex"))
            #expect(second.stderr.components(separatedBy: "error:").count == 3, "\(second.stderr)")
            let entries = try log()
            #expect(entries.count == 12)
            #expect(
                entries.filter { $0["moderator"] as? String == "bob" }.map { $0["id"] as? String }
                    == ["p9", "p10", "p11", "p12"])
        }
        let noisy = sandbox.run("review", "apply", "bob.json")
        #expect(noisy.stderr.contains("p3: already approved by alex"))
        // --force settles the disagreements, and only them.
        let forced = sandbox.run("review", "apply", "bob.json", "--force")
        #expect(forced.status == 0, "\(forced.stderr)")
        let settled = try log()
        #expect(settled.count == 14)
        #expect(settled.suffix(2).map { $0["id"] as? String } == ["p7", "p8"])
        #expect(settled.suffix(2).allSatisfy { $0["moderator"] as? String == "bob" })
        for _ in 1...2 {
            let again = sandbox.run("review", "apply", "bob.json")
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try log().count == 14)
        }

        // Then both through the CLI.
        try sandbox.write(
            "more.json",
            Self.export(posts + [("q1", "more", 41.0), ("q2", "more", 41.1), ("q3", "more", 41.2)]))
        #expect(sandbox.run("import", "posts", "more.json").status == 0)
        #expect(sandbox.run("review", "approve", "q1", "--as", "alex").status == 0)
        let same = sandbox.run("review", "approve", "q1", "--as", "bob")
        #expect(same.status == 0)
        #expect(same.stderr.contains("q1: already approved by alex"))
        let other = sandbox.run("review", "reject", "q1", "--reason", "spam", "--as", "bob")
        #expect(other.status == 1)
        #expect(other.stderr.contains("q1 was already approved by alex"))
        #expect(try log().count == 15)

        // And through the queue: Alex decides the post Bob has on screen.
        let workspace = try Workspace(path: sandbox.workspace)
        var keys: [UInt8] = Array("ar1q".utf8)
        let out = CommandOutput(capturingAsTerminal: true)
        let session = ReviewSession(
            workspace: workspace, moderator: "bob", output: out,
            style: .init(colour: false, columns: 80, rows: 40),
            readKey: { [sandbox] in
                if keys.count == 4 { sandbox.run("review", "approve", "q2", "--as", "alex") }
                if keys.count == 3 { sandbox.run("review", "approve", "q3", "--as", "alex") }
                return keys.isEmpty ? nil : keys.removeFirst()
            })
        #expect(try session.run() == .success)
        #expect(out.text.contains("q2: already approved by alex"), "\(out.text)")
        #expect(out.text.contains("q3 is now approved (you saw it pending): decided by alex"))
        let final = try log()
        #expect(final.count == 17)
        #expect(final.suffix(2).allSatisfy { $0["moderator"] as? String == "alex" })
    }

    // MARK: - 4. Files not tied to their sheet, self-declared names

    @Test func theTamperingSuite() throws {
        #expect(try importExport(Self.original).status == 0)
        // p3 was rejected before the sheet existed; the sheet shows the pending ones.
        #expect(
            sandbox.run("review", "reject", "p3", "--reason", "spam", "--as", "lee").status == 0)
        #expect(sandbox.run("review", "sheet", "--out", "sheet.html", "--for", "alex").status == 0)
        let sheet = try SheetPage(path: sandbox.path("sheet.html"))
        let good = try sheet.file([.init(id: "p1", action: "approve")])
        let goodText = String(decoding: good, as: UTF8.self)
        let signature = try #require(
            goodText.components(separatedBy: "\"signature\":\"").dropFirst().first?.prefix(64))
        let flipped = (signature.first == "0" ? "1" : "0") + signature.dropFirst()
        let forged: [(String, Data, String)] = [
            (
                "signature edited",
                Data(goodText.replacingOccurrences(of: signature, with: flipped).utf8),
                "its signature is not valid"
            ),
            (
                "unsigned", try sheet.file([.init(id: "p1", action: "approve")], signed: false),
                "it has no signature"
            ),
            (
                "post added, unsigned",
                Data(
                    goodText.replacingOccurrences(
                        of: "\"decisions\":[",
                        with:
                            "\"decisions\":[{\"id\":\"p3\",\"seen\":\"pending\",\"action\":\"approve\",\"version\":\"\(sheet.posts["p1"]?.version ?? "")\"},"
                    ).utf8),
                "its signature is not valid"
            ),
            (
                "post added, signed with the page's secret",
                try sheet.file([
                    .init(id: "p1", action: "approve"),
                    .init(id: "p3", action: "approve", version: "0123456789ab", seen: "pending"),
                ]), "it decides post 'p3', which sheet \(sheet.sheet) did not show"
            ),
            (
                "version changed",
                Data(
                    goodText.replacingOccurrences(
                        of: sheet.posts["p1"]?.version ?? "-", with: "0123456789ab"
                    ).utf8),
                "its signature is not valid"
            ),
            (
                "version changed and signed",
                try sheet.file([
                    .init(id: "p1", action: "approve", version: "0123456789ab")
                ]), "names version 0123456789ab (pending), not the"
            ),
            (
                "sheet id changed",
                try sheet.file(
                    [.init(id: "p1", action: "approve")], sheet: "0000000000000000"),
                "no sheet '0000000000000000' was made from this workspace"
            ),
            (
                "moderator mallory",
                try sheet.file(
                    [.init(id: "p1", action: "approve")], moderator: "mallory"),
                "its moderator is not the one sheet \(sheet.sheet) was made for"
            ),
            (
                "name with control characters",
                try sheet.file(
                    [.init(id: "p1", action: "approve")],
                    moderator: "alex\n2026-12-01T00:00:00Z  p2  bob  pending → approved"),
                "its moderator name is refused: it holds the control or unprintable character U+A"
            ),
        ]
        for (name, data, message) in forged {
            try sandbox.write("forged.json", data)
            for run in 1...2 {
                let result = sandbox.run("review", "apply", "forged.json")
                #expect(result.status == 3, "\(name), run \(run): \(result.stderr)")
                #expect(result.stderr.contains(message), "\(name): \(result.stderr)")
                #expect(status("p1") == "pending" && status("p3") == "rejected", "\(name)")
                #expect(try log().count == 1, "\(name)")
            }
        }
        // The genuine file applies, once.
        try sandbox.write("good.json", good)
        #expect(sandbox.run("review", "apply", "good.json").status == 0)
        #expect(sandbox.run("review", "apply", "good.json").status == 0)
        #expect(try log().count == 2)
        #expect(try log().last?["moderator"] as? String == "alex")
    }

    @Test func moderatorNamesAreOneLineAndTheLogEscapesOlderOnes() throws {
        #expect(try importExport(Self.original).status == 0)
        for bad in ["bob\nfake line", "bob\u{1B}[2J", "bob\u{202E}xela", "bob\tjr"] {
            for _ in 1...2 {
                let refused = sandbox.run("review", "approve", "p1", "--as", bad)
                #expect(refused.status == 2, "\(bad.debugDescription)")
                #expect(refused.stderr.contains("refused"), "\(refused.stderr)")
                #expect(sandbox.run("review", "sheet", "--out", "s.html", "--for", bad).status == 2)
            }
        }
        #expect(try log().isEmpty)
        // A name an older workspace holds prints on its own line, escaped (SQL: this trove
        // refuses such a name, so no command records it).
        let workspace = try Workspace(path: sandbox.workspace)
        try workspace.testDatabase.execute(
            """
            INSERT INTO decisions (post_id, at, moderator, from_status, to_status, note)
            VALUES ('p1', '2026-01-01T00:00:00Z', 'eve' || char(10) || '2026-01-02T00:00:00Z  p2  bob  pending → approved', 'pending', 'approved', 'a' || char(13) || 'b')
            """)
        for _ in 1...2 {
            let printed = sandbox.run("review", "log").stdout
            #expect(printed.split(separator: "\n").count == 1, "\(printed)")
            #expect(printed.contains("eve\\n2026-01-02T00:00:00Z  p2  bob"))
            #expect(!printed.contains("\r"))
        }
    }

    // MARK: - 5. One bad record blocks a whole posts import

    @Test func badRecordsStopTheImportUnlessSkippedAndAreNamed() throws {
        let text = """
            {"Locations": {
              "p1": {"uid": "u1", "Latitude": 40.7, "Longitude": -74.0, "Date": "2022-01-24"},
              "p2": {"uid": "u2", "Latitude": 40.7, "Longitude": -74.0, "Date": "yesterday"},
              "p3": {"uid": "u3", "Latitude": null, "Longitude": -74.0},
              "p4": {"uid": "u4", "Longitude": -74.0, "userName": "Chen Haddad"},
              "p5": {"uid": "u5", "Latitude": "north", "Longitude": -74.0}}}
            """
        try sandbox.write("export.json", text)
        for _ in 1...2 {
            let stopped = sandbox.run("import", "posts", "export.json")
            #expect(stopped.status == 3)
            #expect(
                stopped.stderr.contains(
                    "export.json: Locations/p2/Date: date 'yesterday' is not a date"))
            #expect(
                stopped.stderr.contains(
                    "nothing was imported; fix the record or pass --skip-invalid"))
            #expect(
                sandbox.run("review", "list", "--status", "all").stdout.split(separator: "\n").count
                    == 1)
        }
        #expect(sandbox.run("import", "posts", "export.json", "--rejects", "r.csv").status == 2)
        for run in 1...2 {
            let skipped = sandbox.run(
                "import", "posts", "export.json", "--skip-invalid", "--rejects", "rejects.csv")
            #expect(skipped.status == 1, "run \(run)")
            let err = skipped.stderr
            #expect(
                err.contains(
                    "skipped: export.json: Locations/p2/Date: date 'yesterday' is not a date"))
            #expect(
                err.contains(
                    "skipped: export.json: Locations/p3/Latitude: latitude is null: the post has no position"
                ))
            #expect(
                err.contains(
                    "skipped: export.json: Locations/p4/lat: no latitude: the post has no position")
            )
            #expect(
                err.contains(
                    "skipped: export.json: Locations/p5/Latitude: latitude 'north' is not a number")
            )
            #expect(!err.contains("'?'"))
            #expect(err.contains("skipped 4 invalid records"), "\(err)")
            let rejects = try String(contentsOfFile: sandbox.path("rejects.csv"), encoding: .utf8)
            let lines = rejects.split(separator: "\r\n")
            #expect(lines.first == "file,line,record,reason,json")
            #expect(lines.count == 5)
            #expect(rejects.contains("export.json,,Locations/p2,date 'yesterday' is not a date,"))
            #expect(!rejects.contains("Chen"))
            #expect(sandbox.run("review", "list").stdout.contains("p1 "))
        }
        // CSV and NDJSON name the line.
        try sandbox.write(
            "posts.csv",
            "id,uid,lat,lon,date\nc1,u,40.7,-74,2022-01-24\nc2,u,,-74,\nc3,u,40.7,-74,soon\n")
        let csv = sandbox.run("import", "posts", "posts.csv", "--skip-invalid")
        #expect(csv.status == 1)
        #expect(csv.stderr.contains("skipped: posts.csv:3: no latitude"))
        #expect(csv.stderr.contains("skipped: posts.csv:4: date 'soon' is not a date"))
        try sandbox.write("posts.ndjson", "{\"id\": \"n1\", \"lat\": 1, \"lon\": 2}\nnot json\n")
        let lines = sandbox.run("import", "posts", "posts.ndjson", "--skip-invalid")
        #expect(lines.status == 1)
        #expect(
            lines.stderr.contains("skipped: posts.ndjson:2: expected one JSON object on this line"))
    }

    // MARK: - 6. A post the user deleted stays pending and approvable

    @Test func postsGoneFromALaterImportAreWithdrawnAndTakeNoDecision() throws {
        #expect(try importExport(Self.original).status == 0)
        #expect(sandbox.run("review", "approve", "p2", "--as", "alex").status == 0)
        #expect(sandbox.run("export", "--layout", "trashmapper", "--out", "t.json").status == 0)
        for run in 1...2 {
            let reimported = try importExport([Self.original[0]])
            #expect(reimported.status == 0)
            #expect(
                reimported.stderr.contains(
                    "post p2 is no longer in export.json: withdrawn (it was approved")
                    == (run == 1),
                "\(reimported.stderr)")
            #expect(status("p2") == "withdrawn" && status("p3") == "withdrawn")
            for action in [
                ["approve", "p3"], ["reject", "p2", "--reason", "spam"],
                ["flag", "p3", "--note", "x"],
            ] {
                let refused = sandbox.run(["review"] + action + ["--as", "bob", "--force"])
                #expect(refused.status == 1)
                #expect(
                    refused.stderr.contains("was withdrawn by its user (no longer in export.json)"))
            }
            // The withdrawal is a change like any other: an update of the changed posts
            // alone takes the approved one out.
            let update = sandbox.run(
                "export", "--layout", "trashmapper", "--update", "--out", "u.json")
            #expect(update.status == 0, "\(update.stderr)")
            #expect(!update.stderr.contains("every record was rendered"), "\(update.stderr)")
            let changes = try String(contentsOfFile: sandbox.path("u.json"), encoding: .utf8)
            #expect(
                changes.contains("\"locations/p2\": null") == (run == 1)
                    && changes.contains("\"locationIndex/p2\": null") == (run == 1),
                "run \(run): \(changes)")
            #expect(sandbox.run("export", "--layout", "trashmapper", "--out", "t.json").status == 0)
            let tree = try String(contentsOfFile: sandbox.path("t.json"), encoding: .utf8)
            #expect(!tree.contains("\"p2\""))
            let entries = try log()
            #expect(entries.count == 3)
            #expect(entries.suffix(2).allSatisfy { $0["to"] as? String == "withdrawn" })
            // Credited to the user who withdrew each post, not to a moderator.
            #expect(entries.suffix(2).allSatisfy { $0["moderator"] is NSNull })
            #expect(
                entries.suffix(2).map { $0["kind"] as? String } == ["withdrawal", "withdrawal"])
            #expect(entries.suffix(2).map { $0["by_user"] as? String } == ["uid-p2", "uid-p3"])
        }
        let text = sandbox.run("review", "log", "p2").stdout
        #expect(text.contains("p2  (user uid-p2)  withdrawal  approved → withdrawn"), "\(text)")
        #expect(!text.contains("trove"))
        let listed = sandbox.run("review", "list", "--status", "withdrawn").stdout
        #expect(listed.contains(#/p3 +withdrawn /#), "\(listed)")
        // Back in the export: pending again.
        let back = try importExport(Self.original)
        #expect(back.stderr.contains("withdrawn post p3 is back: pending again"))
        #expect(status("p3") == "pending" && status("p2") == "pending")
        let restored = try log().last
        #expect(restored?["kind"] as? String == "restoration")
        #expect(restored?["by_user"] as? String == "uid-p3" && restored?["moderator"] is NSNull)
        // Another file's import withdraws nothing of this one.
        try sandbox.write("other.json", Self.export([("z1", "other", 41.0)]))
        #expect(sandbox.run("import", "posts", "other.json").status == 0)
        #expect(status("p1") == "pending")
    }
}
