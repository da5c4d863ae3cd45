import Foundation
import Testing

/// Disk full, on a small tmpfs mounted in a private mount namespace (`unshare -m`, as
/// root or in a user namespace; where neither works the test is skipped, not passed).
/// The export runs with the free space stepped up from too little for its files to more
/// than it needs; every message must tell the truth about the files: "nothing was
/// written" leaves no output, "already replaced" names exactly the files in place, and no
/// run reads "disk I/O error".
@Suite struct DiskFullTests {
    /// `unshare` arguments that give a private mount namespace here, if any do.
    static let unshare: [String]? = {
        for arguments in [["-m"], ["-r", "-m"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            process.arguments =
                arguments + ["sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt && umount /mnt"]
            process.standardError = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return nil }
            process.waitUntilExit()
            if process.terminationStatus == 0 { return arguments }
        }
        return nil
    }()

    static let script = """
        set -u
        D="$1"; T="$2"
        mount -t tmpfs -o size=8M tmpfs "$D" || exit 90
        cd "$D"
        "$T" init -q
        printf 'name,lat,lon\\n' > a.csv
        i=0
        while [ $i -lt 3000 ]; do echo "Name number $i with a long name,1.$i,2.$i"; i=$((i+1)); done >> a.csv
        "$T" import treasures a.csv -q && "$T" geohash -q
        "$T" export --layout flatirongo --out o.json -q || exit 91
        size=$(du -k -c o.json o.storage.json o.storage.sh | tail -1 | cut -f1)
        rm o.json o.storage.json o.storage.sh
        for extra in 0 8 16 24 32 40 48 56 64 96 128 256 512; do
            rm -f fill
            avail=$(df -k . | tail -1 | awk '{print $4}')
            head -c $(( (avail - size - extra) * 1024 )) /dev/zero > fill
            "$T" export --layout flatirongo --out o.json -q 2> err.txt
            echo "@@run $? $(ls o.json o.storage.json o.storage.sh 2>/dev/null | tr '\\n' ' ')"
            cat err.txt
            rm -f o.json o.storage.json o.storage.sh
        done
        """

    @Test(.enabled(if: unshare != nil, "needs a private mount namespace for a small tmpfs"))
    func everyDiskFullMessageTellsWhichFilesChanged() throws {
        try BuiltBinary.require()
        let sandbox = try Sandbox()
        try FileManager.default.createDirectory(
            atPath: sandbox.path("mnt"), withIntermediateDirectories: true)
        let result = try BuiltBinary.run(
            (Self.unshare ?? []) + [
                "sh", "-c", Self.script, "sh", sandbox.path("mnt"), BuiltBinary.path,
            ],
            environment: ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin"], directory: sandbox.folder.path,
            executable: "/usr/bin/unshare")
        #expect(result.status == 0, "\(result.stderr)")
        let runs = result.stdout.components(separatedBy: "@@run ").dropFirst()
        #expect(runs.count == 13, "\(result.stdout)")
        var fullAtTheRecord = 0
        var succeeded = 0
        var fullBefore = 0
        let folder = sandbox.path("mnt") + "/"
        for run in runs {
            let lines = run.split(separator: "\n", omittingEmptySubsequences: false)
            let fields = lines[0].split(separator: " ")
            let status = fields.first.map(String.init)
            let present = Set(fields.dropFirst().map { folder + $0 })
            let message = lines.dropFirst().joined(separator: "\n")
            #expect(!message.contains("I/O error"), "\(message)")
            if status == "0" {
                succeeded += 1
                #expect(present.count == 3)
            } else if message.contains("already replaced: ") {
                fullAtTheRecord += 1
                #expect(status == "4", "\(run)")
                #expect(
                    message.hasPrefix(
                        "error: the disk is full: cannot write to \(folder)trove.sqlite;"))
                let named = message.components(separatedBy: "already replaced: ")[1]
                    .components(separatedBy: ")")[0].components(separatedBy: ", ")
                #expect(Set(named) == present, "\(run)")
            } else {
                fullBefore += 1
                #expect(
                    message.contains("No space left on device") || message.contains("disk is full"),
                    "\(run)")
                #expect(
                    message.contains("nothing was written")
                        || message.contains("nothing was changed"), "\(run)")
                #expect(present.isEmpty, "\(run)")
            }
        }
        // The steps cross all three: too little for the files, enough for the files but
        // not the record, enough for both.
        #expect(fullBefore > 0 && fullAtTheRecord > 0 && succeeded > 0, "\(result.stdout)")
    }
}
