// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "trove",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "trove", targets: ["trove"]),
        // For the fuzz targets in Fuzz/, a package of their own that links these.
        .library(name: "TroveBase", targets: ["TroveBase"]),
        .library(name: "TroveStore", targets: ["TroveStore"]),
        .library(name: "TroveKit", targets: ["TroveKit"]),
        .library(name: "TroveImaging", targets: ["TroveImaging"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // zlib, already linked through libpng: gzip-compressed treasure files.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
        ),
        .target(
            name: "CTroveImaging",
            linkerSettings: [
                .linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("deflate"),
            ]
        ),
        .target(name: "TroveSQLite", dependencies: ["CSQLite"]),
        .target(name: "TroveImaging", dependencies: ["CTroveImaging"]),
        // HTTP: a client over libcurl's multi interface and a server over libmicrohttpd;
        // knows nothing of trove.
        .target(name: "TroveHTTP", dependencies: ["CCurl", "CMicroHTTPD"]),
        // Plain tools with no trove records in them: geography, JSON, formats, files,
        // hashing, concurrency, diagnostics, Firebase's rules for keys and sizes.
        .target(name: "TroveBase", dependencies: ["CZlib"]),
        // The workspace: its schema and migrations, settings, record types and the stores,
        // which speak only in those records. All of trove's SQL lives here.
        .target(name: "TroveStore", dependencies: ["TroveBase", "TroveSQLite"]),
        .target(
            name: "TroveKit",
            dependencies: [
                "TroveBase", "TroveStore", "TroveSQLite", "TroveImaging", "TroveHTTP",
                "CMicroHTTPD",
            ],
            plugins: ["EmbedTemplates"]),
        // Command-line parsing, typed values, help, the man page and completions, all from
        // the commands' declarations; knows no command of trove's.
        .target(name: "TroveCommandLine", dependencies: ["TroveBase"]),
        // The review queue as a web app: routes, sessions and handlers over TroveHTTP's
        // server, and the page from Templates/.
        .target(name: "TroveServe", dependencies: ["TroveKit", "TroveHTTP"]),
        .target(name: "TroveCLI", dependencies: ["TroveCommandLine", "TroveKit", "TroveServe"]),
        .executableTarget(name: "trove", dependencies: ["TroveCLI"]),
        // Templates/ compiled into TroveKit at build time (see Plugins/EmbedTemplates).
        .executableTarget(name: "EmbedTemplatesTool"),
        .plugin(
            name: "EmbedTemplates", capability: .buildTool(),
            dependencies: ["EmbedTemplatesTool"]),
        // In-process timings for `make bench`; not installed.
        .executableTarget(
            name: "trove-bench", dependencies: ["TroveKit"], path: "Benchmarks/InProcess"),
        .testTarget(name: "TroveSQLiteTests", dependencies: ["TroveSQLite"]),
        .testTarget(
            name: "TroveImagingTests",
            dependencies: ["TroveImaging"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "TroveBaseTests", dependencies: ["TroveBase"]),
        .testTarget(name: "TroveStoreTests", dependencies: ["TroveStore", "TroveSQLite"]),
        .testTarget(name: "TroveKitTests", dependencies: ["TroveBase", "TroveStore", "TroveKit"]),
        // Golden/ holds texts the tests compare with, read from the source tree.
        .testTarget(
            name: "TroveCLITests",
            dependencies: [
                "TroveBase", "TroveStore", "TroveCommandLine", "TroveServe", "TroveCLI",
                "TroveImaging",
            ],
            exclude: ["Golden"]),
    ]
)
