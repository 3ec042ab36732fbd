// swift-tools-version: 6.2
import PackageDescription

/// Targets outside the platform modules (GLibRuntime, X11Session, GtkBase, ShieldUI, TrayUI, ReportUI,
/// PickerUI, SystemAccounts) may not contain unsafe code.
let safeSwift: [SwiftSetting] = [
    .strictMemorySafety(),
    .treatWarning("StrictMemorySafety", as: .error),
]

/// The agent's resident set: most of the executable's pages that count are bookkeeping
/// the dynamic linker touches, not code. Linked with lld, its 112,000 relative relocations
/// are packed (DT_RELR, glibc 2.36 as in Debian 12: 2.6 MiB of .rela.dyn become 22 KiB), and
/// the version script exports nothing, so the 30,000 symbols --static-swift-stdlib's
/// -export-dynamic would put in .dynsym (1.9 MiB) are gone. Peak RSS with a shield shown:
/// 61.3 -> 56.2 MiB (tracking benchmark, release).
/// The multi-call program the package installs (screenward-multicall) is packed the same way.
let packedLinkSettings: LinkerSetting = .unsafeFlags(
    [
        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
        "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/screenward-agent/exports.map",
    ],
    .when(platforms: [.linux]))
/// The agent's link: packed, and its code laid out.
let agentLinkerSettings: [LinkerSetting] = [
    packedLinkSettings,
    // The code the agent runs, laid out in one stretch: the functions a profile saw
    // run, in the order they first ran (scripts/profile-agent-layout.sh), then the
    // compiler's unnamed helpers, which no symbol can name, together. The kernel maps
    // an executable's code in blocks of 64 KiB or more, so 1.9 MiB of code run,
    // scattered through 24 MiB, kept 17 MiB resident. With every function in its own
    // section (scripts/env.sh's release flags), peak RSS with a shield shown:
    // 58.1 -> 45.8 MiB. A function the profile did not see only sits among the cold.
    .unsafeFlags(
        [
            "-Xlinker", "--symbol-ordering-file", "-Xlinker",
            "\(Context.packageDirectory)/Sources/screenward-agent/hot-functions.order",
            "-Xlinker", "--no-warn-symbol-ordering", "-Xlinker", "-T", "-Xlinker",
            "\(Context.packageDirectory)/Sources/screenward-agent/unnamed-functions.ld",
        ],
        .when(platforms: [.linux], configuration: .release)),
]

let package = Package(
    name: "Screenward",
    platforms: [.macOS(.v14)],
    // What people use: the API's libraries and the programs. The test tools (test windows, a
    // shield drawn alone, a fake logind) are executable targets the tests build, not products.
    products: [
        .library(name: "FamilyControls", targets: ["FamilyControls"]),
        .library(name: "ManagedSettings", targets: ["ManagedSettings"]),
        .library(name: "ManagedSettingsUI", targets: ["ManagedSettingsUI"]),
        .library(name: "DeviceActivity", targets: ["DeviceActivity"]),
        .executable(name: "screenward-agent", targets: ["screenward-agent"]),
        .executable(name: "screenward", targets: ["screenward"]),
        .executable(name: "screenward-bench", targets: ["screenward-bench"]),
        .executable(name: "screenward-daemon", targets: ["screenward-daemon"]),
        .executable(name: "screenward-tray", targets: ["screenward-tray"]),
        .executable(name: "screenward-report", targets: ["screenward-report"]),
        .executable(name: "screenward-picker", targets: ["screenward-picker"]),
        .executable(name: "screenward-web-host", targets: ["screenward-web-host"]),
        .executable(name: "screenward-multicall", targets: ["screenward-multicall"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // A household's database (docs/household.md): PostgreSQL, through SwiftNIO, over TLS
        // with the server's certificate pinned (swift-nio-ssl, which postgres-nio uses too).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // System libraries: Xlib, XScreenSaver, XSync (Xext), X-Resource, Damage, XFixes and RECORD
        // (Xtst) with GLib (its source for an Xlib connection); GLib and GIO (D-Bus) alone; and GTK 3.
        .systemLibrary(
            name: "CX11", pkgConfig: "x11 xscrnsaver xext xres xdamage xfixes xtst glib-2.0",
            providers: [
                .apt([
                    "libx11-dev", "libxss-dev", "libxext-dev", "libxres-dev", "libxdamage-dev", "libxfixes-dev",
                    "libxtst-dev", "libglib2.0-dev",
                ])
            ]),
        .systemLibrary(
            name: "CGtk", pkgConfig: "gtk+-3.0",
            providers: [.apt(["libgtk-3-dev"])]),
        .systemLibrary(
            name: "CGtkLayerShell", pkgConfig: "gtk-layer-shell-0",
            providers: [.apt(["libgtk-layer-shell-dev"])]),
        // Linux-PAM, for checking a guardian's password (no pkg-config file: the module map links it).
        .systemLibrary(name: "CPam", providers: [.apt(["libpam0g-dev"])]),
        // Extended attributes, for the access lists the daemon grants (the C library's own).
        .systemLibrary(name: "CXattr"),

        // An installed app's proof to the system daemon (non-dumpable, a secret in its own
        // memory): prctl is variadic, so it takes a few lines of C without pointers in its API.
        .target(name: "CAppProof"),
        // What every program does first: standard input, output and error opened on /dev/null
        // when it starts with them closed, and inherited descriptors made to fit its limit on
        // open files (fcntl, open, dup2, getrlimit, /proc/self/fd: a few lines of C, with no
        // pointers in its API).
        .target(name: "CProgramStart"),

        // The local protocol between API clients (apps, their monitors, the CLI) and the
        // state owner (the agent, or the system daemon for a managed account):
        // newline-delimited JSON over a Unix socket.
        .target(
            name: "ScreenwardIPC",
            dependencies: [
                "CAppProof", "CProgramStart", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: safeSwift),

        // The public API, with Apple's names.
        .target(name: "ManagedSettings", dependencies: ["ScreenwardIPC"], swiftSettings: safeSwift),
        .target(name: "FamilyControls", dependencies: ["ManagedSettings", "ScreenwardIPC"], swiftSettings: safeSwift),
        .target(
            name: "ManagedSettingsUI", dependencies: ["ManagedSettings", "ScreenwardIPC"], swiftSettings: safeSwift),
        .target(
            name: "DeviceActivity", dependencies: ["ManagedSettings", "FamilyControls", "ScreenwardIPC"],
            swiftSettings: safeSwift),

        // The core: plain Swift, no C, in six modules that depend only downward (docs/architecture.md).
        // What everything else builds on: support, tokens, application identity, web names.
        .target(
            name: "ScreenwardBasics",
            dependencies: [
                "ManagedSettings", "ScreenwardIPC",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                // RSA, to sign the browser extension's CRX3 package.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: safeSwift),
        // The usage ledger, the accountant that writes it and activity monitoring over it.
        .target(
            name: "UsageLedger",
            dependencies: [
                "ScreenwardBasics", "ManagedSettings", "DeviceActivity", "ScreenwardIPC",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: safeSwift),
        // What is shielded and why: settings stores, shields, rules, reports.
        .target(
            name: "ScreenTimePolicy",
            dependencies: [
                "ScreenwardBasics", "UsageLedger", "ManagedSettings", "ManagedSettingsUI", "FamilyControls",
                "DeviceActivity", "ScreenwardIPC",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: safeSwift),
        // Apps' manifests and extension processes: the only part of the core that starts programs.
        .target(
            name: "AppExtensions",
            dependencies: [
                "ScreenwardBasics", "UsageLedger", "ScreenTimePolicy", "DeviceActivity", "ScreenwardIPC",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: safeSwift),
        // The state owner's service: the API's requests, shield extensions, browsers' tabs.
        .target(
            name: "ScreenTimeOwner",
            dependencies: [
                "ScreenwardBasics", "UsageLedger", "ScreenTimePolicy", "AppExtensions", "ManagedSettings",
                "ManagedSettingsUI", "FamilyControls", "DeviceActivity", "ScreenwardIPC",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: safeSwift),
        // Child mode (the daemon's side of managed users, guardians) and the activity picker's model.
        .target(
            name: "ChildModeCore",
            dependencies: [
                "ScreenwardBasics", "UsageLedger", "ScreenTimePolicy", "AppExtensions", "ScreenTimeOwner",
                "ManagedSettings", "FamilyControls", "DeviceActivity", "ScreenwardIPC",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: safeSwift),
        // The umbrella: re-exports the six, so the programs and tests import ScreenwardCore alone.
        .target(
            name: "ScreenwardCore",
            dependencies: [
                "ScreenwardBasics", "UsageLedger", "ScreenTimePolicy", "AppExtensions", "ScreenTimeOwner",
                "ChildModeCore",
            ],
            swiftSettings: safeSwift),

        // A household's computers sharing one child's limits through a PostgreSQL database
        // (docs/household.md): making, joining and leaving one, and the sync of usage. Only the
        // daemon takes it (the command line asks the daemon), so nothing else links PostgresNIO.
        .target(
            name: "Household",
            dependencies: [
                "ScreenwardCore", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: safeSwift),

        // GLib's main loop and what runs on it without X: mailboxes, timers, D-Bus, logind,
        // inotify, notifications. A platform module (it touches C); the daemon and the command
        // line take it without the X11 module, so they link no Xlib and no GTK.
        .systemLibrary(name: "CGLib", pkgConfig: "gio-2.0 glib-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .target(name: "GLibRuntime", dependencies: ["CGLib", "ScreenwardCore", "ScreenwardIPC"]),
        // The seam between the agent and the display it runs on (docs/architecture.md, "Displays"):
        // the focus and the evidence of presence in, as values; each backend implements it.
        .target(name: "SessionDisplay", dependencies: ["ScreenwardBasics"], swiftSettings: safeSwift),
        // The X11 platform module: with ShieldUI and SystemAccounts, the only places that touch C.
        .target(name: "X11Session", dependencies: ["CX11", "GLibRuntime", "ScreenwardCore", "SessionDisplay"]),

        // The Wayland protocols the agent speaks, as wayland-scanner made them from the XML kept
        // beside (scripts/generate-wayland-protocols.sh), over Debian's libwayland-client.
        .target(
            name: "CWayland", exclude: ["protocols"], linkerSettings: [.linkedLibrary("wayland-client")]),
        // The Wayland platform module: a wlroots compositor's toplevels and idle time
        // (docs/architecture.md, "Displays"). It touches C, like the X11 module.
        .target(
            name: "WaylandSession",
            dependencies: ["CWayland", "CGLib", "GLibRuntime", "ScreenwardCore", "SessionDisplay"]),

        // GTK itself for every window Screenward draws: started once on the session's display,
        // its signals connected from Swift. A platform module allowed to touch C.
        .target(name: "GtkBase", dependencies: ["CGtk"]),
        // The shield presenter's policies as values (what to replace, where the focus goes back),
        // tested without an X server: plain safe Swift over the X module's value types.
        .target(
            name: "ShieldCoverage", dependencies: ["ScreenwardCore", "SessionDisplay", "X11Session"],
            swiftSettings: safeSwift),
        // The GTK shield window and the guardian's dialog over it: another platform module.
        .target(
            name: "ShieldUI",
            dependencies: [
                "CGtk", "CGtkLayerShell", "GtkBase", "ScreenwardCore", "ManagedSettings", "ManagedSettingsUI",
            ]),
        // The tray icon and its menu (an AppIndicator, falling back to the XEmbed tray):
        // the fourth platform module allowed to touch C.
        .systemLibrary(
            name: "CAppIndicator", pkgConfig: "ayatana-appindicator3-0.1",
            providers: [.apt(["libayatana-appindicator3-dev"])]),
        .target(name: "TrayUI", dependencies: ["CAppIndicator", "CGtk", "GtkBase"]),
        // Report charts (cairo and Pango) in a GTK window or a PNG: the fifth platform module.
        .target(
            name: "ReportUI", dependencies: ["CGtk", "GtkBase", "ScreenwardCore", "DeviceActivity"],
            linkerSettings: [
                .linkedLibrary("cairo"), .linkedLibrary("pango-1.0"), .linkedLibrary("pangocairo-1.0"),
                .linkedLibrary("gdk_pixbuf-2.0"),
            ]),
        // The report window and PNG writer (`screenward report` runs it: the CLI links no GTK).
        .target(
            name: "ReportMain",
            dependencies: [
                "ReportUI", "ScreenwardCore", "ScreenwardIPC", "DeviceActivity", "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: safeSwift),
        .target(
            name: "TrayMain",
            dependencies: [
                "TrayUI", "ScreenwardCore", "ScreenwardIPC", "GLibRuntime", "SessionDisplay", "X11Session", "GtkBase",
                "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: safeSwift),

        // The activity picker's GTK dialog: another platform module allowed to touch C.
        .target(name: "PickerUI", dependencies: ["CGtk", "GtkBase", "ScreenwardCore"]),
        // The picker's program, which `screenward pick` and FamilyActivityPicker run.
        .target(
            name: "PickerMain",
            dependencies: [
                "PickerUI", "ScreenwardCore", "FamilyControls", "ScreenwardIPC", "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: safeSwift),

        // The system's accounts and groups, PAM password checks and socket peer credentials:
        // the third platform module allowed to touch C (getpwnam_r, getgrouplist, libpam,
        // SO_PEERCRED): the system daemon's view of who is who.
        .target(
            name: "SystemAccounts",
            dependencies: [
                "CPam", "CXattr", "ScreenwardCore", "ScreenwardIPC", .product(name: "NIOCore", package: "swift-nio"),
            ]),

        // Private X sessions, child processes, local users, the system daemon and a managed
        // user's desktop (for the tests, the demo and the benchmarks).
        .target(
            name: "SessionHarness",
            dependencies: [
                "X11Session", "SessionDisplay", "ScreenwardTesting", "ScreenwardCore", "ScreenwardIPC",
                "ManagedSettings",
            ],
            swiftSettings: safeSwift),

        .target(
            name: "AgentMain",
            dependencies: [
                "ScreenwardCore", "GLibRuntime", "SessionDisplay", "X11Session", "WaylandSession", "ScreenwardIPC",
                "GtkBase", "ShieldUI",
                "ShieldCoverage", "SystemAccounts", "ManagedSettings", "ManagedSettingsUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: safeSwift),
        // The system daemon: owns managed users' limits (child mode).
        .target(
            name: "DaemonMain",
            dependencies: [
                "ScreenwardCore", "ScreenwardIPC", "SystemAccounts", "GLibRuntime", "DeviceActivity", "Household",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: safeSwift),
        // What the programs run from a command line share: their errors and ArgumentParser's
        // frame in the reader's language.
        .target(
            name: "CommandLineSupport",
            dependencies: [
                "ScreenwardBasics", "ScreenwardIPC", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: safeSwift),
        .target(
            name: "CommandLineMain",
            dependencies: [
                "ScreenwardCore", "FamilyControls", "ManagedSettings", "ScreenwardIPC", "GLibRuntime",
                "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: safeSwift),
        // The browsers' native-messaging host: relays the Screenward extension's reports
        // (the active tab of each window) to the state owner.
        .target(
            name: "WebHostMain",
            dependencies: [
                "ScreenwardCore", "ScreenwardIPC", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: safeSwift),
        // The programs: each one's main.swift runs its module's command. For development and the
        // tests each is an executable of its own, as scripts/install.sh installs them; the Debian
        // package installs one multi-call program instead (docs/packaging.md), which runs the
        // program its name says: one copy of Swift's runtime, Foundation and ICU rather than seven.
        .executableTarget(
            name: "screenward-agent", dependencies: ["AgentMain"],
            exclude: ["exports.map", "hot-functions.order", "unnamed-functions.ld"], swiftSettings: safeSwift,
            linkerSettings: agentLinkerSettings),
        .executableTarget(name: "screenward", dependencies: ["CommandLineMain"], swiftSettings: safeSwift),
        .executableTarget(name: "screenward-daemon", dependencies: ["DaemonMain"], swiftSettings: safeSwift),
        .executableTarget(name: "screenward-tray", dependencies: ["TrayMain"], swiftSettings: safeSwift),
        .executableTarget(name: "screenward-report", dependencies: ["ReportMain"], swiftSettings: safeSwift),
        .executableTarget(name: "screenward-picker", dependencies: ["PickerMain"], swiftSettings: safeSwift),
        .executableTarget(name: "screenward-web-host", dependencies: ["WebHostMain"], swiftSettings: safeSwift),
        // The multi-call program the package installs (docs/packaging.md): every program but the
        // agent, whose resident set a larger executable would grow (the Swift runtime's lookups
        // read every module's conformance records: 1.2 MiB more in a measured agent).
        .executableTarget(
            name: "screenward-multicall",
            dependencies: ["CommandLineMain", "DaemonMain", "TrayMain", "ReportMain", "PickerMain", "WebHostMain"],
            swiftSettings: safeSwift, linkerSettings: [packedLinkSettings]),
        // The talks' two demo apps, in Examples/: what an app developer writes against the API.
        // What both examples' programs share: installing their manifest.
        .target(name: "ExampleSupport", path: "Examples/Shared/ExampleSupport", swiftSettings: safeSwift),
        // The Worklog sample of the WWDC22 talk, and its program (the app's buttons and its monitor).
        .target(
            name: "WorklogDemo", dependencies: ["DeviceActivity", "FamilyControls", "ManagedSettings"],
            path: "Examples/Worklog/WorklogDemo", swiftSettings: safeSwift),
        .executableTarget(
            name: "worklog",
            dependencies: [
                "WorklogDemo", "DeviceActivity", "ExampleSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/Worklog/worklog", swiftSettings: safeSwift),
        // The Homework app of the WWDC21 talk: its model, monitor and custom shields, and its program.
        .target(
            name: "HomeworkKit",
            dependencies: ["DeviceActivity", "FamilyControls", "ManagedSettings", "ManagedSettingsUI"],
            path: "Examples/Homework/HomeworkKit", swiftSettings: safeSwift),
        .executableTarget(
            name: "homework",
            dependencies: [
                "HomeworkKit", "DeviceActivity", "FamilyControls", "ManagedSettings", "ExampleSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/Homework/homework", swiftSettings: safeSwift),
        .executableTarget(
            name: "screenward-testwindow",
            dependencies: [
                "GLibRuntime", "SessionDisplay", "X11Session", "ScreenwardTesting", "FamilyControls", "ManagedSettings",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: safeSwift),
        // Test doubles of the platform's services, kept out of the production modules (as
        // swift-nio keeps NIOEmbedded beside NIOPosix): a fake logind that speaks GDBus
        // through X11Session's helpers. Like the platform module beside it, it touches C,
        // so it does not get the `safeSwift` settings. Only tests and test programs use it.
        .target(
            name: "ScreenwardTesting", dependencies: ["CX11", "CGLib", "GLibRuntime", "SessionDisplay", "X11Session"]),
        // Test support: the fake logind on a private bus, as a program the tests start.
        .executableTarget(
            name: "screenward-fake-logind",
            dependencies: [
                "ScreenwardTesting", "GLibRuntime", "SessionDisplay", "X11Session",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: safeSwift),
        // Shows one shield, for screenshots, the tests and trying looks.
        .executableTarget(
            name: "screenward-shieldview",
            dependencies: [
                "GtkBase", "ShieldUI", "ScreenwardCore", "GLibRuntime", "SessionDisplay", "X11Session",
                "ScreenwardTesting",
                "ManagedSettingsUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: safeSwift),
        .executableTarget(
            name: "screenward-bench",
            dependencies: [
                "ScreenwardCore", "GLibRuntime", "SessionDisplay", "X11Session", "WaylandSession", "ScreenwardTesting",
                "SessionHarness",
                "DeviceActivity",
                "FamilyControls", "ManagedSettings", "Household",
                "ScreenwardIPC",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: safeSwift),

        // What the tests share: skipping a test that cannot run here (failing it under CI), a raw socket client,
        // a ledger written at once.
        .target(
            name: "TestSupport",
            dependencies: [
                "ScreenwardCore", "ManagedSettings", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/TestSupport", swiftSettings: safeSwift),

        .testTarget(name: "DeviceActivityTests", dependencies: ["DeviceActivity"]),
        .testTarget(name: "ManagedSettingsUITests", dependencies: ["ManagedSettingsUI"]),
        .testTarget(
            name: "ScreenwardIPCTests",
            dependencies: [
                "ScreenwardIPC", "TestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // The public API driven in-process against the real state owner, with a controllable clock.
        .testTarget(
            name: "ScreenTimeAPITests",
            dependencies: [
                "ScreenwardCore", "DeviceActivity", "FamilyControls", "ManagedSettings", "ManagedSettingsUI",
                "ScreenwardIPC", "WorklogDemo", "HomeworkKit", "TestSupport", "GLibRuntime",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .testTarget(
            name: "ScreenwardCoreTests",
            dependencies: [
                "ScreenwardCore", "SessionHarness", "TestSupport",
                // The modules whose internals the tests reach with `@testable import`.
                "ScreenwardBasics", "UsageLedger", "ScreenTimePolicy", "ChildModeCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        // Child mode tried by real users (useradd, runuser) against the real daemon, as root.
        .testTarget(
            name: "ChildModeTests",
            dependencies: [
                "ScreenwardCore", "ManagedSettings", "SessionHarness", "TestSupport", "Household",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // Real accounts and real PAM: creates users and groups, so most of it needs root.
        .testTarget(
            name: "SystemAccountsTests",
            dependencies: ["SystemAccounts", "ScreenwardCore", "SessionHarness", "TestSupport"]),
        .testTarget(
            name: "X11SessionTests",
            dependencies: [
                "GLibRuntime", "SessionDisplay", "X11Session", "ScreenwardTesting", "ScreenwardCore", "SessionHarness",
                "TestSupport",
                "ScreenwardIPC", "FamilyControls", "ManagedSettings", "ManagedSettingsUI", "DeviceActivity",
            ]),
        // The shield window, driven through screenward-shieldview (GTK starts once per process).
        .testTarget(
            name: "WaylandSessionTests",
            dependencies: ["ChildModeCore", "SessionHarness", "TestSupport", "WaylandSession"]),
        .testTarget(
            name: "ShieldCoverageTests",
            dependencies: ["ShieldCoverage", "ScreenwardCore", "SessionDisplay", "X11Session"]),
        .testTarget(
            name: "ShieldUITests",
            dependencies: [
                "ScreenwardCore", "SessionHarness", "SessionDisplay", "X11Session", "ScreenwardTesting",
                "ManagedSettingsUI",
                "TestSupport",
            ]),
    ]
)
