import Foundation
import Testing

/// Every image or photo is read the one bounded way: a sparse 20 GB file, `/dev/zero`,
/// `/dev/urandom` and a FIFO are refused from their type, signature or size. The binary
/// runs under an address-space limit (`prlimit --as`), so a reading that grows with the
/// file fails the test instead of filling the machine, and under `timeout`, so a FIFO
/// that blocks fails it instead of hanging.
@Suite struct BoundedImageReadingTests {
    /// Far below what a 20 GB or endless read needs; enough for the binary itself.
    static let addressSpace = 400 << 20

    let sandbox: Sandbox

    init() throws {
        try BuiltBinary.require()
        sandbox = try Sandbox()
    }

    /// Runs the built binary in the sandbox under the memory limit.
    func run(_ arguments: String...) throws -> RunResult {
        try BuiltBinary.run(
            ["--as=\(Self.addressSpace)", "--", "/usr/bin/timeout", "60", BuiltBinary.path]
                + arguments,
            environment: ["PATH": "/usr/bin:/bin", "HOME": sandbox.folder.path],
            directory: sandbox.folder.path, executable: "/usr/bin/prlimit")
    }

    /// `name` as a sparse file of `size` bytes that starts with `start`.
    func sparse(_ name: String, size: Int64 = 20 << 30, start: Data = Data()) throws {
        let path = try sandbox.write(name, start)
        let descriptor = open(path, O_WRONLY)
        #expect(descriptor >= 0)
        #expect(ftruncate(descriptor, off_t(size)) == 0)
        close(descriptor)
    }

    /// The hostile files under `folder`: a sparse 20 GB file of zeros, one behind a real
    /// JPEG's first bytes, and a FIFO no one writes to.
    func hostileFiles(in folder: String) throws {
        let header = try PostPhotos.jpeg(width: 300, height: 300)
        try sparse("\(folder)/zero.jpg")
        try sparse("\(folder)/header.jpg", start: header)
        #expect(mkfifo(sandbox.path("\(folder)/fifo.jpg"), 0o644) == 0)
    }

    @Test func validateAndImagesRefuseEachCheaply() throws {
        try hostileFiles(in: "img")
        try sandbox.write(
            "t.csv",
            "name,lat,lon,image\nZero,1,2,img/zero.jpg\nHeader,1,3,img/header.jpg\n"
                + "Fifo,1,4,img/fifo.jpg\nDevzero,1,5,/dev/zero\nUrandom,1,6,/dev/urandom\n")
        #expect(try run("init").status == 0)
        #expect(try run("import", "treasures", "t.csv").status == 0)
        for _ in 0..<2 {
            let validate = try run("validate")
            #expect(validate.status == 1, "\(validate.stderr)")
            let text = validate.stdout + validate.stderr
            #expect(
                text.contains(
                    "t.csv:2: error[T122]: image \(sandbox.path("img/zero.jpg")) is neither JPEG nor PNG"
                ))
            #expect(
                text.contains(
                    "image \(sandbox.path("img/header.jpg")) cannot be read: the file is 21474836480 bytes, more than an image of 90000 pixels can hold"
                ))
            #expect(
                text.contains(
                    "image \(sandbox.path("img/fifo.jpg")) cannot be read: it is a FIFO, not an image file"
                ))
            #expect(
                text.contains("image /dev/zero cannot be read: it is a device, not an image file"))
            #expect(
                text.contains(
                    "image /dev/urandom cannot be read: it is a device, not an image file"))

            let images = try run("images")
            #expect(images.status == 1, "\(images.stderr)")
            #expect(
                images.stderr.contains(
                    "\(sandbox.path("img/zero.jpg")): not a JPEG or PNG image: starts with bytes 00 00 00 00"
                ))
            #expect(
                images.stderr.contains(
                    "\(sandbox.path("img/header.jpg")): cannot read the file: the file is 21474836480 bytes"
                ))
            #expect(
                images.stderr.contains(
                    "\(sandbox.path("img/fifo.jpg")): cannot read the file: it is a FIFO"))
            #expect(images.stderr.contains("/dev/zero: cannot read the file: it is a device"))
            #expect(images.stderr.contains("/dev/urandom: cannot read the file: it is a device"))
            #expect(images.stderr.contains("5 images failed"))
        }
    }

    @Test func importPostsRefusesEachPhotoCheaply() throws {
        try hostileFiles(in: "photos")
        var posts = ["zero", "header", "fifo"]
        // Device nodes inside the photos folder (1,5 is /dev/zero, 1,9 /dev/urandom), where
        // one can make them (root).
        if mknod(sandbox.path("photos/devzero.jpg"), S_IFCHR | 0o644, dev_t(0x105)) == 0,
            mknod(sandbox.path("photos/urandom.jpg"), S_IFCHR | 0o644, dev_t(0x109)) == 0
        {
            posts += ["devzero", "urandom"]
        }
        let lines = posts.enumerated().map { index, name in
            #"{"id": "p\#(index)", "lat": 1, "lon": \#(index), "photo": "\#(name).jpg"}"#
        }
        try sandbox.write("posts.ndjson", lines.joined(separator: "\n") + "\n")
        #expect(try run("init").status == 0)
        for _ in 0..<2 {
            let result = try run("import", "posts", "posts.ndjson", "--photos", "photos")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "photo of post p0: cannot read \(sandbox.path("photos/zero.jpg")): not a JPEG or PNG image"
                ))
            #expect(
                result.stderr.contains(
                    "photo of post p1: cannot read \(sandbox.path("photos/header.jpg")): the file is 21474836480 bytes"
                ))
            #expect(
                result.stderr.contains(
                    "photo of post p2: cannot read \(sandbox.path("photos/fifo.jpg")): it is a FIFO"
                ))
            if posts.count == 5 {
                #expect(
                    result.stderr.contains(
                        "photo of post p3: cannot read \(sandbox.path("photos/devzero.jpg")): it is a device"
                    ))
                #expect(
                    result.stderr.contains(
                        "photo of post p4: cannot read \(sandbox.path("photos/urandom.jpg")): it is a device"
                    ))
            }
        }
    }
}
