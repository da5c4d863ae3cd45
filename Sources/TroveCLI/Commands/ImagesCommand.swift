import Foundation
import TroveBase
import TroveCommandLine
import TroveKit
import TroveStore

enum ImagesCommand {
    static let command = Command(
        "images", abstract: "Make the image renditions the apps download.",
        discussion: """
            Treasures: full (1024x1024 fit), thumb (256x256 fit), pin (100x100 cover).
            Posts: full (1600x1600 fit), thumb (256x256 fit). Change them with the settings
            renditions.treasures / renditions.posts, or for one run with --rendition.
            --quality is remembered as renditions.quality, so the next run keeps it.
            Images are never enlarged: a rendition of a smaller source keeps the source's
            size (a 32x32 image gives a 32x32 pin, not 100x100), and the run says how many.
            Outputs are upright, keep PNG alpha, and carry no metadata but the ICC profile.
            Unchanged sources with unchanged settings are skipped. Only approved posts are
            published: the renditions of a post no longer approved leave the output folder,
            as do those of treasures removed from the workspace.
            """,
        options: [treasures, posts, out, jobs, quality, renditions, maxPixels],
        formats: [.text, .json]
    ) { invocation in
        let workspace = try invocation.openWorkspace()
        let settings = try workspace.settings()
        var options = Renditions.Options(
            outputFolder: invocation.resolve(invocation[Self.out] ?? "build/images"))
        let onlyTreasures = invocation[Self.treasures]
        let onlyPosts = invocation[Self.posts]
        options.includeTreasures = onlyTreasures || !onlyPosts
        options.includePosts = onlyPosts || !onlyTreasures
        if let jobs = invocation[Self.jobs] { options.jobs = jobs }
        if let quality = invocation[Self.quality] {
            options.quality = quality
            options.remembersQuality = true
        } else if let quality = settings.renditionQuality {
            options.quality = quality
        }
        if let maxPixels = invocation[Self.maxPixels] { options.maxPixels = maxPixels }
        let flags = invocation[Self.renditions]
        if !flags.isEmpty {
            var specs: [RenditionSpec] = []
            for flag in flags {
                switch RenditionSpec.parse(flag) {
                case .success(let spec): specs.append(spec)
                case .failure(let error): throw invocation.usageError(error.description)
                }
            }
            options.treasureSpecs = specs
            options.postSpecs = specs
        } else {
            options.treasureSpecs = settings.treasureRenditions
            options.postSpecs = settings.postRenditions
        }

        let bar = invocation.progress(
            "rendering", total: try Renditions.count(workspace, options: options))
        let summary = try Interruption.watching {
            try Renditions.run(
                workspace, options: options, isCancelled: { Interruption.received != nil }
            ) { done in
                bar.set(done)
            }
        }
        bar.finish()

        for failure in summary.failures {
            invocation.warn(
                "\(failure.source): \(failure.reason) (\(failure.kind.rawValue) \(failure.key))")
        }
        if invocation.format == .json {
            let failures = summary.failures.map {
                JSONObject([
                    "kind": $0.kind.rawValue, "key": $0.key, "source": $0.source,
                    "reason": $0.reason,
                ])
            }
            var object = JSONObject([
                "images": summary.images, "made": summary.made,
                "unchanged": summary.unchanged, "removed": summary.removed,
                "failed": failures,
            ])
            // Only when it was: a whole run's object is as it always was.
            if summary.interrupted { object.add("interrupted", true) }
            invocation.print(object.jsonText)
        }
        var line =
            "made \(summary.made) renditions of \(summary.images - summary.failures.count) images "
            + "(\(summary.unchanged) already current) in \(options.outputFolder)"
        if summary.removed > 0 {
            line +=
                "; removed \(summary.removed) rendition\(summary.removed == 1 ? "" : "s")"
                + " of treasures or posts no longer published"
        }
        if let first = summary.smallerThanAsked.first {
            let count = summary.smallerThanAsked.count
            line +=
                "; \(count) \(count == 1 ? "is" : "are") smaller than asked, as images are never "
                + "enlarged (first: \(first.kind.rawValue) \(first.key)'s \(first.name), "
                + "\(first.width)x\(first.height) for \(first.spec.width)x\(first.spec.height))"
        }
        if !summary.failures.isEmpty {
            line +=
                "; \(summary.failures.count) image\(summary.failures.count == 1 ? "" : "s") failed"
        }
        invocation.note(line)
        if summary.interrupted {
            invocation.warn(
                "interrupted: the \(summary.made) renditions made are recorded; run the same "
                    + "command again to make the rest")
            return .problems
        }
        if !flags.isEmpty {
            invocation.note(
                "note: the --rendition flags were for this run only; a run without them makes "
                    + "the configured set again (renditions.treasures, renditions.posts)")
        }
        if options.includeTreasures,
            let remote = try? MissingBucket.remoteTreasureImages(in: workspace),
            remote > 0
        {
            invocation.note(
                "note: \(remote) treasure image\(remote == 1 ? " is a remote URL" : "s are remote URLs"):"
                    + " remote images get no renditions; exports use the URL as given for every one"
            )
        }
        return summary.failures.isEmpty ? .success : .problems
    }

    // MARK: - Declarations

    static let treasures = Flag("treasures", help: "Only treasure images.")
    static let posts = Flag("posts", help: "Only post photos.")
    static let out = Option<String>(
        "out", value: "dir", help: "Output folder (default: build/images).",
        role: .output(.folder))
    static let renditions = Option<String>(
        "rendition", value: "name=WxH[:fit|cover]",
        help: "A rendition to make; given flags replace the configured set for this run only."
    ).repeated
    static let jobs = Option<Int>(
        "jobs", value: "n", help: "Worker threads (default: all cores).",
        expected: "a whole number from 1 to 256"
    ) { Int($0).flatMap { (1...256).contains($0) ? $0 : nil } }
    static let quality = Option<Int>(
        "quality", value: "q",
        help: "JPEG quality, 1-100, remembered as renditions.quality (default 80).",
        expected: "a whole number from 1 to 100"
    ) { Int($0).flatMap { (1...100).contains($0) ? $0 : nil } }
    static let maxPixels = Option<Int>(
        "max-pixels", value: "n", help: "Refuse larger images (default 100000000).",
        expected: "a positive whole number"
    ) { Int($0).flatMap { $0 > 0 ? $0 : nil } }
}
