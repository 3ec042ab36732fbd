@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import SessionHarness
import TestSupport
import XCTest

/// The activity picker under Xvfb + openbox: what it lists, its search, and the selection
/// written after real clicks and keys, through the real agent.
final class PickerTests: XSessionTestCase {
    static let entries = [
        "game.desktop":
            "[Desktop Entry]\nType=Application\nName=Game\nExec=game\nIcon=applications-games\nCategories=Game;\n",
        "notes.desktop": "[Desktop Entry]\nType=Application\nName=Notes\nExec=notes\nCategories=Office;\n",
        "chat.desktop":
            "[Desktop Entry]\nType=Application\nName=Chat\nExec=chat\nCategories=Network;InstantMessaging;\n",
        "helper.desktop": "[Desktop Entry]\nType=Application\nName=Helper Zq\nExec=helper\nNoDisplay=true\n",
    ]
    static let app = "org.example.picktest"

    /// The test's entries (XDG_DATA_HOME) over the machine's shared data without its own
    /// entries (XDG_DATA_DIRS, where GTK finds its icon themes); nothing else of the person's.
    func pickerEnvironment(display: String) throws -> [String: String] {
        try catalogEnvironment(entries: Self.entries).merging([
            "DISPLAY": display, "SCREENWARD_HOME": home.path, "LANG": "C.UTF-8",
        ]) { $1 }
    }

    /// In a made-up language whose every text reads ⟦English⟧ (`PseudoLocale`), the picker
    /// shows no other text, with a website typed too; in Korean and Vietnamese, none of the
    /// English render's texts is left.
    func testEveryTextOfThePickerGoesThroughTheTranslations() throws {
        _ = try requireTool("xdotool")
        let session = try startXSession()
        defer { session.stop() }
        func shownTexts(_ language: [String: String], screenshot name: String? = nil) throws -> [String] {
            let environment = try pickerEnvironment(display: session.display).merging(language) { $1 }
            let picker = try PickerDriver(self, program: "screenward-picker", ["--choose"], environment: environment)
            defer { picker.process.stop() }
            if let name { screenshot(name, on: session.display) }
            try picker.type("example.org")
            // The texts traced once the list was whole, and after the search.
            return picker.lines.filter { $0.hasPrefix(PickerTraceLine.textPrefix) }.map {
                String($0.dropFirst(PickerTraceLine.textPrefix.count))
            }
        }
        // The apps' names and ids, and the website as it was typed, key by key.
        let typed = "example.org"
        let data = Set(["Game", "Notes", "Chat", "game.desktop", "notes.desktop", "chat.desktop"])
            .union(typed.indices.map { String(typed[...$0]) })
        let pseudo = try shownTexts(try PseudoLocale.environment())
        XCTAssertGreaterThan(pseudo.count, 10, "\(pseudo)")
        for text in Set(pseudo) {
            XCTAssertEqual(PseudoLocale.untranslated(in: text, data: data), "", "not through the translations: \(text)")
        }
        let english = Set(try shownTexts(["LANG": "C.UTF-8"]))
        for (language, locale) in [("ko", "ko_KR.UTF-8"), ("vi", "vi_VN.UTF-8")] {
            let shown = Set(try shownTexts(["LANG": locale], screenshot: "picker-\(language).png"))
            for text in english where !PseudoLocale.untranslated(in: text, data: data).isEmpty {
                XCTAssertFalse(shown.contains(text), "\(language) shows the English \(text)")
            }
        }
    }

    /// An app's header and footer (`FamilyActivityPicker(headerText:footerText:selection:)`) are
    /// shown as the app wrote them, markup and all as plain text.
    func testTheAppsHeaderAndFooterAreShown() throws {
        _ = try requireTool("xdotool")
        let session = try startXSession()
        defer { session.stop() }
        let picker = try PickerDriver(
            self, program: "screenward-picker",
            ["--choose", "--header", "Apps to limit", "--footer", "Ask before <b>changing</b> this."],
            environment: try pickerEnvironment(display: session.display))
        defer { picker.process.stop() }
        try picker.type("x")
        let shown = picker.lines.filter { $0.hasPrefix(PickerTraceLine.textPrefix) }.map {
            String($0.dropFirst(PickerTraceLine.textPrefix.count))
        }
        XCTAssertTrue(shown.contains("Apps to limit"), "\(shown)")
        XCTAssertTrue(shown.contains("Ask before <b>changing</b> this."), "\(shown)")
        screenshot("picker-footer.png", on: session.display)
    }

    /// About the machine's real applications: they are listed beside the test's, however many
    /// the machine has, and a person finds each by typing part of its name.
    func testItListsTheTestsAndTheMachinesDesktopEntriesAndSearchNarrowsIt() throws {
        _ = try requireTool("xdotool")
        let session = try startXSession()
        defer { session.stop() }
        let environment = try pickerEnvironment(display: session.display).merging([
            "XDG_DATA_DIRS": "/usr/local/share:/usr/share"
        ]) { $1 }
        // One of this machine's own applications, as the menus list it.
        let system = ApplicationCatalog.loadFromEnvironment([
            "XDG_DATA_HOME": "/nonexistent", "XDG_DATA_DIRS": "/usr/local/share:/usr/share",
        ]).0
        let shown = system.entries.filter { !$0.noDisplay }
        // One xdotool can type, that matches none of the test's own.
        guard
            let machines = shown.first(where: { entry in
                entry.name.count >= 3
                    && entry.name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " ") }
                    && !["gam", "notes", "chat"].contains { entry.name.lowercased().contains($0) }
            })
        else { try cannotRun("this machine has no desktop entries to list") }

        let picker = try PickerDriver(self, program: "screenward-picker", ["--choose"], environment: environment)
        defer { picker.process.stop() }
        XCTAssertTrue(
            picker.lines.contains(PickerTraceLine.ready(applications: shown.count + 3)), "\(picker.lines.prefix(3))")
        XCTAssertEqual(
            picker.shownRows.first?.hasPrefix("category "), true, "the list starts with a category: \(picker.shownRows)"
        )

        // Typing (the search field has the focus) narrows the list as each key comes.
        try picker.type("chat")
        XCTAssertTrue(picker.shownRows.contains("app chat.desktop"), "\(picker.shownRows)")
        XCTAssertFalse(picker.shownRows.contains("app game.desktop"), "\(picker.shownRows)")
        try picker.key("ctrl+a")
        try picker.type("gam")
        XCTAssertTrue(picker.shownRows.contains("app game.desktop"), "\(picker.shownRows)")
        XCTAssertFalse(picker.shownRows.contains("app notes.desktop"), "\(picker.shownRows)")
        try picker.key("ctrl+a")
        try picker.type(machines.name)
        XCTAssertTrue(
            picker.shownRows.contains("app \(machines.id)"), "\(machines.id) (\(machines.name)): \(picker.shownRows)")
        XCTAssertFalse(picker.shownRows.contains("app game.desktop"))
        try picker.key("ctrl+a")
        try picker.type("Zq")
        XCTAssertEqual(picker.shownRows, [], "NoDisplay entries are not listed")
        XCTAssertTrue(picker.lines.contains("picker search: \"Zq\" matches 0 applications"))
        screenshot("picker-search.png", on: session.display)
    }

    /// Among hundreds of applications (a desktop with many installed), a person reaches theirs
    /// by turning the mouse wheel over the list or by typing part of its name, and ticks it.
    func testAmongHundredsOfApplicationsAPersonScrollsOrSearchesToTheirs() throws {
        _ = try requireTool("xdotool")
        let session = try startXSession()
        defer { session.stop() }
        let environment = try pickerEnvironment(display: session.display)
        let crowd = try GeneratedApplications(
            count: 300, in: try XCTUnwrap(environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }))
        let picker = try PickerDriver(self, program: "screenward-picker", ["--choose"], environment: environment)
        defer { picker.process.stop() }
        XCTAssertTrue(
            picker.lines.contains(PickerTraceLine.ready(applications: crowd.count + 3)), "\(picker.lines.prefix(3))")
        try picker.process.waitForStandardError(containing: PickerTraceLine.completePrefix, timeout: 20)
        let firstScreen = picker.shownRows

        // The wheel: the list's last rows come into view and take a click.
        try picker.scroll()
        let last = try XCTUnwrap(picker.shownRows.last { $0.hasPrefix("app ") }, "\(picker.shownRows)")
        XCTAssertFalse(firstScreen.contains(last), "one screen cannot show 300 rows: \(firstScreen)")
        try picker.click(last)
        XCTAssertTrue(
            picker.lines.contains(PickerTraceLine.ticked(String(last.dropFirst("app ".count)), true)),
            "\(picker.lines.suffix(5))")

        // The search: a name typed (the key goes to the search field) narrows the list to it.
        try picker.type("Notes")
        XCTAssertTrue(picker.shownRows.contains("app notes.desktop"), "\(picker.shownRows)")
        try picker.click("app notes.desktop")
        try picker.key("Return")
        XCTAssertEqual(try picker.exitStatus(), 0, picker.process.standardError.suffix(1500).description)
        let printed = picker.process.outputLines.joined()
        XCTAssertTrue(printed.contains("notes.desktop") && printed.contains(last.dropFirst("app ".count)), printed)
        XCTAssertFalse(printed.contains("game.desktop"), printed)
    }

    /// `screenward pick` as the app: a real click ticks Chat, a search and a click take the whole
    /// Games category, Enter is Done; the file holds the app's tokens for exactly those.
    func testRealClicksAndKeysWriteTheAppsTokensForWhatWasChosen() throws {
        let (session, agent, client, environment) = try startAgent()
        defer {
            _ = agent.stop()
            session.stop()
        }
        let file = temporary.appendingPathComponent("selection.json")

        let picker = try PickerDriver(
            self, program: "screenward", ["pick", "--for", Self.app, "--output", file.path], environment: environment)
        try picker.click("app chat.desktop")
        try picker.type("gam")
        try picker.click("category Game")
        try picker.key("Return")
        XCTAssertEqual(try picker.exitStatus(), 0, picker.process.standardError.suffix(1500).description)

        let chosen = try JSONDecoder().decode(FamilyActivitySelection.self, from: Data(contentsOf: file))
        let expected = try agent.cli(["select", "--for", Self.app, "--app", "chat.desktop", "--category", "Game"])
        XCTAssertEqual(chosen, try JSONDecoder().decode(FamilyActivitySelection.self, from: Data(expected.utf8)))
        let described = try client.call(AuthorizationMethods.describeSelection, chosen)
        XCTAssertEqual(described.items, SelectionRequest(applications: ["chat.desktop"], categories: ["Game"]))

        // Opened again on that file: both ticked (and the category's game with it). Keys only:
        // type to search, Tab into the list, space ticks Notes, Enter is Done.
        let again = try PickerDriver(
            self, program: "screenward", ["pick", "--for", Self.app, "--current", file.path, "--output", file.path],
            environment: environment)
        XCTAssertEqual(again.isTicked("app chat.desktop"), true)
        XCTAssertEqual(again.isTicked("category Game"), true)
        XCTAssertEqual(again.isTicked("app game.desktop"), true)
        XCTAssertEqual(again.isTicked("app notes.desktop"), false)
        screenshot("picker.png", on: session.display)
        try again.type("notes")
        XCTAssertEqual(again.shownRows, ["category Office", "app notes.desktop"])
        try again.key("Tab")
        try again.key("Down")
        try again.key("space")
        try again.key("Return")
        XCTAssertEqual(try again.exitStatus(), 0, again.process.standardError.suffix(1500).description)
        let widened = try client.call(
            AuthorizationMethods.describeSelection,
            try JSONDecoder().decode(FamilyActivitySelection.self, from: Data(contentsOf: file)))
        XCTAssertEqual(
            widened.items, SelectionRequest(applications: ["chat.desktop", "notes.desktop"], categories: ["Game"]))
    }

    /// Websites: those seen in a browser are listed under their own header (an international
    /// one as a person reads it); one typed in the search is offered, Enter adds it ticked (as
    /// its registrable domain), and the app gets its tokens for exactly the websites ticked.
    func testTheWebsitesSeenAreListedAndOneTypedInTheSearchIsAdded() throws {
        // Two websites seen in Chromium, in the ledger the agent then opens.
        do {
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let ledger = try Ledger(url: ScreenwardHome.fromEnvironment(["SCREENWARD_HOME": home.path]).ledgerURL)
            let session = try ledger.beginAgentSession(pid: 1, display: ":1", at: Date().addingTimeInterval(-600))
                .sessionID
            let chromium = AppIdentity(key: .windowClass("Chromium"), displayName: "Chromium")
            for (index, site) in [
                Website(domain: "reddit.com", host: "www.reddit.com"),
                Website(domain: "xn--bcher-kva.de", host: "xn--bcher-kva.de"),
            ].enumerated() {
                let id = try ledger.openInterval(
                    sessionID: session, app: chromium, token: ApplicationToken(opaqueValue: "chromium"), site: site,
                    startingAt: Date().addingTimeInterval(-500 + Double(index) * 60))
                try ledger.closeInterval(id, duration: .seconds(30), reason: .focusChange)
            }
        }
        let (session, agent, client, environment) = try startAgent()
        defer {
            _ = agent.stop()
            session.stop()
        }
        let file = temporary.appendingPathComponent("websites.json")

        let picker = try PickerDriver(
            self, program: "screenward", ["pick", "--for", Self.app, "--output", file.path], environment: environment)
        XCTAssertTrue(try picker.scroll(to: "site reddit.com"), "\(picker.shownRows)")
        XCTAssertTrue(
            picker.shownRows.contains("section websites") && picker.shownRows.contains("site xn--bcher-kva.de"),
            "\(picker.shownRows)")
        XCTAssertFalse(picker.shownRows.contains("typed-site"), "nothing is offered before a website is typed")
        try picker.click("site reddit.com")
        screenshot("picker-websites.png", on: session.display)

        // A host typed: the offer names its website; Enter adds it, ticked, and does not close.
        try picker.type("www.Example.org")
        XCTAssertEqual(picker.shownRows, ["section websites", "typed-site"])
        screenshot("picker-website-typed.png", on: session.display)
        try picker.key("Return")
        try picker.waitForList(after: PickerTraceLine.ticked("example.org", true))
        XCTAssertEqual(picker.shownRows, ["section websites", "site example.org"], "listed now, the offer gone")
        XCTAssertEqual(picker.isTicked("site example.org"), true)
        // Words that are no website's name offer nothing.
        try picker.key("ctrl+a")
        try picker.type("bücher")
        XCTAssertEqual(picker.shownRows, ["section websites", "site xn--bcher-kva.de"])
        try picker.click("button Done")
        XCTAssertEqual(try picker.exitStatus(), 0, picker.process.standardError.suffix(1500).description)

        let chosen = try JSONDecoder().decode(FamilyActivitySelection.self, from: Data(contentsOf: file))
        XCTAssertEqual(
            try client.call(AuthorizationMethods.describeSelection, chosen).items,
            SelectionRequest(webDomains: ["example.org", "reddit.com"]))
        // Opened again on that file: both listed and ticked, the one never seen too.
        let again = try PickerDriver(
            self, program: "screenward", ["pick", "--for", Self.app, "--current", file.path], environment: environment)
        defer { again.process.stop() }
        try again.type("example")
        XCTAssertEqual(again.isTicked("site example.org"), true)
        XCTAssertEqual(again.isTicked("site reddit.com"), nil, "not shown for this search")
    }

    func testCancelWritesNothingAndBadInputIsRefusedClearly() throws {
        let (session, agent, _, environment) = try startAgent()
        defer {
            _ = agent.stop()
            session.stop()
        }
        let file = temporary.appendingPathComponent("never.json")

        let picker = try PickerDriver(
            self, program: "screenward", ["pick", "--for", Self.app, "--output", file.path], environment: environment)
        try picker.click("app chat.desktop")
        try picker.click("button Cancel")
        XCTAssertEqual(try picker.exitStatus(), 1)
        XCTAssertTrue(
            picker.process.standardError.contains("cancelled: nothing was chosen, nothing written"),
            picker.process.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))

        let escaped = try PickerDriver(self, program: "screenward-picker", ["--choose"], environment: environment)
        try escaped.key("Escape")
        XCTAssertEqual(try escaped.exitStatus(), 1)
        XCTAssertEqual(escaped.process.outputLines, [], "nothing printed")

        let corrupt = temporary.appendingPathComponent("corrupt.json")
        try Data("{\"applicationTokens\": 3}".utf8).write(to: corrupt)
        func failure(_ arguments: [String], _ extra: [String: String] = [:]) throws -> (Int32?, String) {
            let run = try ChildProcess(
                try ProjectPrograms.url(of: "screenward"), arguments, environment: environment.merging(extra) { $1 })
            let status = run.waitForExit(timeout: 15)
            Thread.sleep(forTimeInterval: 0.05)
            return (status, run.standardError)
        }
        let (corruptStatus, corruptMessage) = try failure(["pick", "--for", Self.app, "--current", corrupt.path])
        XCTAssertEqual(corruptStatus, 65)
        XCTAssertTrue(corruptMessage.contains("is not a FamilyActivitySelection (JSON)"), corruptMessage)
        let (strangerStatus, strangerMessage) = try failure(["pick", "--for", "org.example.stranger"])
        XCTAssertEqual(strangerStatus, 2)
        XCTAssertTrue(strangerMessage.contains("org.example.stranger is not authorised"), strangerMessage)
        let (displayStatus, displayMessage) = try failure(["pick", "--for", Self.app], ["DISPLAY": ":99999"])
        XCTAssertNotEqual(displayStatus, 0)
        XCTAssertTrue(
            displayMessage.contains("cannot open the X display :99999 for the activity picker"), displayMessage)
        let (noAgentStatus, noAgentMessage) = try failure(
            ["pick", "--for", Self.app], ["SCREENWARD_HOME": temporary.appendingPathComponent("nobody").path])
        XCTAssertEqual(noAgentStatus, 2)
        XCTAssertTrue(noAgentMessage.contains("the Screenward agent is not running"), noAgentMessage)
        let (missingStatus, missingMessage) = try failure(
            ["pick", "--for", Self.app], ["SCREENWARD_PICKER": "/nonexistent/screenward-picker"])
        XCTAssertNotEqual(missingStatus, 0)
        XCTAssertTrue(missingMessage.contains("SCREENWARD_PICKER names /nonexistent/screenward-picker"), missingMessage)
    }

    /// Homework's setup without ids opens the picker twice (FamilyActivityPicker): what the
    /// guardian clicks is what Homework shields when its interval starts.
    func testHomeworkSetupPicksItsAppsInThePicker() throws {
        _ = try requireTool("xdotool")
        let scene = try startShieldScene(
            extraEntries: Self.entries, extraEnvironment: ["SCREENWARD_PICKER_TRACE": "1"])
        defer { scene.stop() }
        let apps = try DemoApplications(display: scene.session.display, windows: ["game.Game", "notes.Notes"])
        let game = id(apps.windows[0])
        let environment = scene.agent.environment
        let before = scene.agent.process.standardError.components(separatedBy: "with extensions").count
        try scene.agent.allowAccess("org.example.homework")
        _ = try runProject("homework", ["install"], environment)
        scene.wait("the agent to read homework's manifest", timeout: .seconds(10)) {
            scene.agent.process.standardError.components(separatedBy: "with extensions").count > before
        }

        let now = Date()
        let setup = try PickerDriver(
            self, program: "homework",
            [
                "setup", "--threshold", "1h", "--from", Self.hourAndMinute(now.addingTimeInterval(-3600)), "--until",
                Self.hourAndMinute(now.addingTimeInterval(3600)),
            ],
            environment: environment, shownBy: scene.agent.process)
        try setup.click("app game.desktop")
        try setup.key("Return")
        // The second picker (the encouraged apps) is a new window: its own trace follows.
        let firstDone = setup.lines.count
        try waitUntil("the second picker") {
            setup.lines.dropFirst(firstDone).contains { $0.hasPrefix("picker shown: ") }
        }
        try setup.click("app notes.desktop")
        try setup.key("Return")
        XCTAssertEqual(try setup.exitStatus(), 0, setup.process.standardError.suffix(2000).description)
        XCTAssertTrue(
            setup.process.outputLines.joined().contains("Homework discourages the 1 item(s) picked"),
            "\(setup.process.outputLines)")
        _ = try scene.shield(over: game)
        XCTAssertEqual(try scene.covered().map(\.window), ["\(game)"], "only the game was picked to discourage")
    }

    /// Worklog's `setup --pick`: each picker opens with the app's current category ticked (its
    /// tokens described back by FamilyActivityPicker); Enter keeps it, and more than one
    /// category is refused with the reason.
    func testWorklogSetupPicksItsCategoriesStartingFromItsDefaults() throws {
        let (session, agent, _, environment) = try startAgent()
        defer {
            _ = agent.stop()
            session.stop()
        }
        let setup = try PickerDriver(
            self, program: "worklog", ["setup", "--pick"], environment: environment, shownBy: agent.process)
        XCTAssertEqual(setup.isTicked("category Social"), true)
        XCTAssertEqual(setup.isTicked("category Game"), false)
        try setup.key("Return")
        let firstDone = setup.lines.count
        try waitUntil("the second picker") {
            setup.lines.dropFirst(firstDone).contains { $0.hasPrefix("picker shown: ") }
        }
        XCTAssertEqual(setup.isTicked("category Game"), true)
        try setup.click("category Social")
        try setup.key("Return")
        XCTAssertNotEqual(try setup.exitStatus(), 0)
        XCTAssertTrue(
            setup.process.standardError.contains("tick exactly one category's box and no single apps (2 categories"),
            setup.process.standardError.suffix(800).description)
    }

    // MARK: Helpers

    /// A session, the agent with the test's entries, the test's app authorised on it, and the
    /// environment the picker runs in there (the agent's, over the machine's data for GTK).
    private func startAgent() throws -> (PrivateXSession, AgentRun, ServiceClient, [String: String]) {
        _ = try requireTool("xdotool")
        let session = try startXSession()
        // The agent shows the apps' pickers (FamilyActivityPicker), with their trace on its standard error.
        let agent = try AgentRun(
            display: session.display, home: home,
            environment: try catalogEnvironment(entries: Self.entries).merging(["SCREENWARD_PICKER_TRACE": "1"]) { $1 })
        let client = ServiceClient(
            transport: SocketTransport(path: agent.home.appendingPathComponent("agent.sock").path),
            bundleIdentifier: Self.app)
        try agent.allowAccess(Self.app, "org.example.worklog", "org.example.homework")
        _ = try client.call(AuthorizationMethods.request, .individual)
        let environment = try pickerEnvironment(display: session.display).merging(agent.environment) { $1 }
        return (session, agent, client, environment)
    }

    private func waitUntil(_ what: String, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(15)
        while !condition() {
            guard Date() < deadline else { throw HarnessError.timedOut(what) }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
