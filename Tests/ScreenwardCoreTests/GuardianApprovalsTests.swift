import Foundation
import ScreenwardIPC
import TestSupport
import XCTest

@testable import ChildModeCore
@testable import ScreenwardCore

/// The waiting room for guardians' answers, with scripted code checks and clock: one
/// outcome per ask, wrong codes counted per guardian and per child, waits enforced,
/// dialogs taken down when the app leaves or time runs out.
final class GuardianApprovalsTests: XCTestCase {
    private var shown: [(UInt32, GuardianAsk)] = []
    private var closed: [UInt64] = []
    private var recorded: [ChildEvent] = []
    private var checks: [(String, String)] = []
    private var verdict: CodeCheck = .accepted
    private var now = Date(timeIntervalSince1970: 1_800_000_000)
    private var agentAttached = true

    private func approvals() -> GuardianApprovals {
        GuardianApprovals(
            services: GuardianApprovals.Services(
                guardianNames: { ["mum", "root"] },
                isGuardian: { $0 == "mum" || $0 == "root" },
                show: { [unowned self] uid, ask in
                    guard agentAttached else { return false }
                    shown.append((uid, ask))
                    return true
                },
                close: { [unowned self] _, id in closed.append(id) },
                checkCode: { [unowned self] user, code in
                    checks.append((user, code))
                    return verdict
                },
                record: { [unowned self] event, _ in recorded.append(event) },
                now: { [unowned self] in now }, language: { [unowned self] _ in language }))
    }

    private var language = "en"

    private let app = InstalledApp(
        bundleIdentifier: "org.example.homework", displayName: "Homework", executables: ["/usr/bin/homework"])
    private let peer = ServicePeer(send: { _ in }, isConnected: { true })

    /// The race a child's key reader could win: the guardian types a code into the dialog for
    /// one request; the child's program opens another and types the code there first. While a
    /// dialog is open no other request is shown: it is refused, the open one is voided, both
    /// recorded, and the code reaches nothing.
    func testASecondRequestWhileADialogIsOpenIsRefusedAndVoidsTheOpenOne() throws {
        let approvals = approvals()
        var first: [GuardianApprovals.Outcome] = []
        try approvals.begin(.rules, app: app, child: "kid", uid: 1001, requester: peer) { first.append($0) }
        let open = try XCTUnwrap(shown.first?.1)
        var second: [GuardianApprovals.Outcome] = []
        XCTAssertThrowsError(
            try approvals.begin(.authorize, app: app, child: "kid", uid: 1001, requester: peer) { second.append($0) }
        ) { error in
            XCTAssertTrue("\(error)".contains("no other request may be made meanwhile"), "\(error)")
        }
        XCTAssertEqual(shown.count, 1, "the second request's dialog must not be shown")
        XCTAssertEqual(closed, [open.id], "the open dialog is voided")
        guard case .notApproved(let why) = first.first else { return XCTFail("\(first)") }
        XCTAssertTrue(why.description.contains("was voided"), why.description)
        XCTAssertTrue(recorded.contains { $0.detail.contains("was voided") }, "\(recorded)")
        XCTAssertEqual(second, [])
        XCTAssertEqual(approvals.pendingCount, 0)
        // The code the guardian typed reaches no request.
        var verdicts: [GuardianVerdict] = []
        approvals.answer(GuardianAnswer(ask: open.id, guardian: "mum", code: "123456"), fromAgentOf: 1001) {
            verdicts.append($0)
        }
        XCTAssertEqual(verdicts, [.closed])
        XCTAssertTrue(checks.isEmpty, "no code is checked")

        // Nor can a request made right after take it: no dialog comes up in that session until
        // every code that could have been typed into the voided one is stale.
        XCTAssertThrowsError(try approvals.begin(.rules, app: app, child: "kid", uid: 1001, requester: peer) { _ in }) {
            error in
            XCTAssertTrue("\(error)".contains("ended without an approval a moment ago"), "\(error)")
        }
        // Another child's session is theirs alone.
        try approvals.begin(.rules, app: app, child: "other", uid: 1002, requester: peer) { _ in }
        XCTAssertEqual(shown.count, 2)
        now += GuardianApprovals.quietAfterUnapproved
        try approvals.begin(.rules, app: app, child: "kid", uid: 1001, requester: peer) { _ in }
        XCTAssertEqual(shown.count, 3)
    }

    /// A dialog the child cancels as the guardian types (a program of theirs can press Escape
    /// in it) or that voids itself (it lost the keyboard) leaves the code to nothing either.
    func testAfterADialogEndsUnapprovedNoOtherComesUpUntilItsCodesAreStale() throws {
        let approvals = approvals()
        for ending in ["cancelled", "voided"] {
            var outcomes: [GuardianApprovals.Outcome] = []
            try approvals.begin(.rules, app: app, child: "kid", uid: 1001, requester: peer) { outcomes.append($0) }
            let ask = try XCTUnwrap(shown.last?.1)
            let answer =
                ending == "cancelled"
                ? GuardianAnswer.cancelled(ask.id)
                : GuardianAnswer.voided(ask.id, because: Phrase("another program took the keyboard", context: "event"))
            var verdicts: [GuardianVerdict] = []
            approvals.answer(answer, fromAgentOf: 1001) { verdicts.append($0) }
            guard case .notApproved = outcomes.first else { return XCTFail("\(ending): \(outcomes)") }
            XCTAssertThrowsError(
                try approvals.begin(.rules, app: app, child: "kid", uid: 1001, requester: peer) { _ in })
            now += GuardianApprovals.quietAfterUnapproved - 1
            XCTAssertThrowsError(
                try approvals.begin(.rules, app: app, child: "kid", uid: 1001, requester: peer) { _ in })
            now += 1
        }
        XCTAssertTrue(recorded.contains { $0.detail.contains("was voided: another program took the keyboard") })
        XCTAssertTrue(checks.isEmpty)
    }

    func testTheRightCodeApprovesOnce() throws {
        let approvals = approvals()
        var outcomes: [GuardianApprovals.Outcome] = []
        try approvals.begin(.authorize, app: app, child: "kid", uid: 1001, requester: peer) { outcomes.append($0) }
        let ask = try XCTUnwrap(shown.first?.1)
        XCTAssertEqual(ask.question, "Homework wants to manage kid's screen time")
        XCTAssertEqual(ask.guardians, ["mum", "root"])

        var verdicts: [GuardianVerdict] = []
        approvals.answer(GuardianAnswer(ask: ask.id, guardian: "mum", code: "123456"), fromAgentOf: 1001) {
            verdicts.append($0)
        }
        XCTAssertEqual(verdicts, [.approved])
        XCTAssertEqual(outcomes, [.approved(by: "mum")])
        XCTAssertEqual(closed, [ask.id])
        XCTAssertEqual(recorded.map(\.kind), [.approved])
        // Answered: a second answer finds nothing.
        approvals.answer(GuardianAnswer(ask: ask.id, guardian: "mum", code: "123456"), fromAgentOf: 1001) {
            verdicts.append($0)
        }
        XCTAssertEqual(verdicts.last, .closed)
        XCTAssertEqual(outcomes.count, 1)
    }

    func testOnlyTheChildsOwnAgentMayAnswer() throws {
        let approvals = approvals()
        try approvals.begin(.authorize, app: app, child: "kid", uid: 1001, requester: peer) { _ in
            XCTFail("no outcome expected")
        }
        var verdicts: [GuardianVerdict] = []
        approvals.answer(GuardianAnswer(ask: shown[0].1.id, guardian: "mum", code: "123456"), fromAgentOf: 1002) {
            verdicts.append($0)
        }
        XCTAssertEqual(verdicts, [.closed])
        XCTAssertTrue(checks.isEmpty)
    }

    func testWrongCodesAreCountedAndThenMustWaitWhicheverGuardianIsChosen() throws {
        let approvals = approvals()
        verdict = .wrong
        try approvals.begin(.authorize, app: app, child: "kid", uid: 1001, requester: peer) { _ in }
        let id = shown[0].1.id
        var verdicts: [GuardianVerdict] = []
        for _ in 0..<3 {
            approvals.answer(GuardianAnswer(ask: id, guardian: "mum", code: "654321"), fromAgentOf: 1001) {
                verdicts.append($0)
            }
        }
        XCTAssertEqual(checks.count, 3)
        guard case .tryAgain(_, let notBefore) = verdicts.last else { return XCTFail("\(verdicts)") }
        XCTAssertEqual(notBefore, now.addingTimeInterval(30))
        // During the wait nothing is checked, not even for another guardian's name.
        approvals.answer(GuardianAnswer(ask: id, guardian: "root", code: "654321"), fromAgentOf: 1001) {
            verdicts.append($0)
        }
        XCTAssertEqual(checks.count, 3)
        // Someone who is no guardian counts as wrong without any code looked up.
        now = now.addingTimeInterval(31)
        approvals.answer(GuardianAnswer(ask: id, guardian: "kid", code: "654321"), fromAgentOf: 1001) {
            verdicts.append($0)
        }
        XCTAssertEqual(checks.count, 3)
        guard case .tryAgain(_, let longer) = verdicts.last else { return XCTFail("\(verdicts)") }
        XCTAssertEqual(longer, now.addingTimeInterval(60), "the fourth wrong answer in a row doubles the wait")
        XCTAssertEqual(recorded.filter { $0.kind == .notApproved }.count, 4)
        XCTAssertFalse(recorded.contains { $0.detail.contains("654321") }, "a code is never recorded")
    }

    func testASpentCodeCountsAsWrongWhileNotACodeAndNoAuthenticatorCostNoTry() throws {
        let approvals = approvals()
        var outcomes: [GuardianApprovals.Outcome] = []
        try approvals.begin(.authorize, app: app, child: "kid", uid: 1001, requester: peer) { outcomes.append($0) }
        let id = shown[0].1.id
        var verdicts: [GuardianVerdict] = []
        verdict = .reused
        approvals.answer(GuardianAnswer(ask: id, guardian: "mum", code: "123456"), fromAgentOf: 1001) {
            verdicts.append($0)
        }
        XCTAssertEqual(approvals.limiter.consecutiveFailures("mum"), 1)
        XCTAssertTrue(recorded.last?.detail.contains("already used") ?? false, "\(recorded)")

        verdict = .malformed("A code has only digits.")
        approvals.answer(GuardianAnswer(ask: id, guardian: "mum", code: "hunter2"), fromAgentOf: 1001) {
            verdicts.append($0)
        }
        XCTAssertEqual(
            verdicts.last,
            .tryAgain(
                message: "That is not a code: type the 6 digits your authenticator app shows for Screenward.",
                notBefore: nil))
        verdict = .notEnrolled
        approvals.answer(GuardianAnswer(ask: id, guardian: "mum", code: "123456"), fromAgentOf: 1001) {
            verdicts.append($0)
        }
        XCTAssertEqual(verdicts.last, .tryAgain(message: GuardianApprovals.notEnrolledAdvice("mum"), notBefore: nil))
        XCTAssertTrue(GuardianApprovals.notEnrolledAdvice("mum").contains("screenward guardian enroll"))
        XCTAssertTrue(recorded.last?.detail.contains("mum has no authenticator set up") ?? false, "\(recorded)")
        XCTAssertEqual(
            approvals.limiter.consecutiveFailures("mum"), 1, "neither a non-code nor a missing authenticator is a guess"
        )
        XCTAssertTrue(outcomes.isEmpty, "the ask still waits")
    }

    func testCancelTheAppLeavingAndTimeEachEndTheAsk() throws {
        let approvals = approvals()
        var outcomes: [GuardianApprovals.Outcome] = []
        try approvals.begin(.revoke, app: app, child: "kid", uid: 1001, requester: peer) { outcomes.append($0) }
        approvals.answer(.cancelled(shown[0].1.id), fromAgentOf: 1001) { XCTAssertEqual($0, .cancelled) }
        // (No dialog comes up for a while after one ended unapproved.)
        now += GuardianApprovals.quietAfterUnapproved
        try approvals.begin(.authorize, app: app, child: "kid", uid: 1001, requester: peer) { outcomes.append($0) }
        approvals.requesterGone(peer)
        now += GuardianApprovals.quietAfterUnapproved
        try approvals.begin(
            .authorize, app: app, child: "kid", uid: 1001, requester: ServicePeer(send: { _ in }, isConnected: { true })
        ) {
            outcomes.append($0)
        }
        XCTAssertEqual(approvals.expire(), now.addingTimeInterval(GuardianApprovals.timeout))
        now = now.addingTimeInterval(GuardianApprovals.timeout)
        XCTAssertNil(approvals.expire())
        XCTAssertEqual(outcomes.count, 3)
        XCTAssertFalse(outcomes.contains(.approved(by: "mum")))
        XCTAssertEqual(approvals.pendingCount, 0)
        XCTAssertEqual(closed.count, 3)
    }

    func testWithoutAnAgentNothingCanBeAsked() {
        agentAttached = false
        XCTAssertThrowsError(
            try approvals().begin(.authorize, app: app, child: "kid", uid: 1001, requester: peer) { _ in })
    }
    /// The dialog is in the child's session: its question and verdicts are in the session's language.
    func testTheDialogSpeaksTheSessionsLanguage() throws {
        language = "ko"
        let korean = try TranslationCatalogs.compiled("ko")
        let approvals = approvals()
        try approvals.begin(
            .rules, app: app, child: "kid", uid: 1001, requester: peer, action: .add15Minutes
        ) { _ in }
        let ask = try XCTUnwrap(shown.first?.1)
        XCTAssertEqual(ask.question, "kid asks a guardian to give 15 more minutes on today's limits")
        let question = ask.question(in: korean)
        XCTAssertEqual(
            question,
            korean(
                "{child} asks a guardian to {action}", context: "guardianDialog.question",
                ["child": "kid", "action": korean("give 15 more minutes on today's limits", context: "guardianAction")])
        )
        XCTAssertFalse(question.contains("guardian"), question)
        verdict = .wrong
        var verdicts: [GuardianVerdict] = []
        approvals.answer(GuardianAnswer(ask: ask.id, guardian: "mum", code: "123456"), fromAgentOf: 1001) {
            verdicts.append($0)
        }
        let wrong = korean(
            "Wrong code. Try again with the code your authenticator app shows now.", context: "guardianDialog.verdict")
        XCTAssertNotEqual(wrong, "Wrong code. Try again with the code your authenticator app shows now.")
        XCTAssertEqual(verdicts, [.tryAgain(message: wrong, notBefore: nil)])
    }

    /// A guardian answers from their own account: the ask is listed (with the app's reason) for
    /// guardians and for the child it is about only, the dialog comes down, and a "no" there
    /// leaves no wait at the child's desk (no code was typed there).
    func testAGuardianAnswersFromTheirOwnAccount() throws {
        let approvals = approvals()
        var outcomes: [GuardianApprovals.Outcome] = []
        try approvals.begin(.loosen, app: app, child: "kid", uid: 1001, requester: peer, reason: "stop the schedule") {
            outcomes.append($0)
        }
        let waiting = approvals.waiting(of: nil, language: "en")
        XCTAssertEqual(waiting.map(\.question), ["Homework asks to lift some of kid's restrictions: stop the schedule"])
        XCTAssertEqual(approvals.waiting(of: [1002], language: "en"), [], "another child's asks are not theirs")
        XCTAssertThrowsError(try approvals.answer(waiting[0].id + 1, approve: true, byGuardian: "mum"))

        try approvals.answer(waiting[0].id, approve: false, byGuardian: "mum")
        guard case .notApproved(let why) = outcomes.first else { return XCTFail("\(outcomes)") }
        XCTAssertEqual(why.description, "mum said no")
        XCTAssertEqual(closed, [waiting[0].id], "the dialog comes down")
        XCTAssertTrue(recorded.contains { $0.detail.contains("was not allowed to lift some of kid's restrictions") })
        XCTAssertThrowsError(try approvals.answer(waiting[0].id, approve: true, byGuardian: "mum"), "answered once")

        try approvals.begin(.loosen, app: app, child: "kid", uid: 1001, requester: peer, reason: "again") {
            outcomes.append($0)
        }
        try approvals.answer(
            try XCTUnwrap(approvals.waiting(of: [1001], language: "en").first).id, approve: true, byGuardian: "root")
        XCTAssertEqual(outcomes.last, .approved(by: "root"))
        XCTAssertTrue(recorded.contains { $0.detail.contains("root allowed Homework") }, "\(recorded.map(\.detail))")
        XCTAssertTrue(checks.isEmpty, "no code is asked of a guardian at their own account")
    }
}

/// What the daemon trusts about installed apps and the code in a process.
final class InstalledAppsTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("apps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func write(_ id: String, _ json: String) throws {
        try Data(json.utf8).write(to: folder.appendingPathComponent("\(id).json"))
    }

    func testAManifestNamesTheAppAndItsExecutables() throws {
        try write(
            "org.example.a",
            #"""
            {"format": 1, "bundleIdentifier": "org.example.a", "displayName": " A ", "executables": ["/bin/sh"], \#
            "later": true}
            """#
        )
        let app = try InstalledApps(directory: folder, trust: .anyone).app("org.example.a")
        XCTAssertEqual(app.displayName, "A")
        XCTAssertEqual(app.executables, [URL(fileURLWithPath: "/bin/sh").resolvingSymlinksInPath().path])
    }

    func testMissingMalformedAndUnsafeManifestsAreRefusedWithTheirReason() throws {
        let apps = InstalledApps(directory: folder, trust: .anyone)
        XCTAssertThrowsError(try apps.app("org.example.none")) {
            XCTAssertTrue("\($0)".contains("not installed"), "\($0)")
        }
        try write(
            "org.example.b",
            #"{"format": 2, "bundleIdentifier": "org.example.b", "displayName": "B", "executables": ["/bin/sh"]}"#)
        XCTAssertThrowsError(try apps.app("org.example.b")) { XCTAssertTrue("\($0)".contains("format 2"), "\($0)") }
        try write(
            "org.example.c",
            #"{"format": 1, "bundleIdentifier": "org.example.other", "displayName": "C", "executables": ["/bin/sh"]}"#)
        XCTAssertThrowsError(try apps.app("org.example.c")) {
            XCTAssertTrue("\($0)".contains("names org.example.other"), "\($0)")
        }
        try write(
            "org.example.d",
            #"{"format": 1, "bundleIdentifier": "org.example.d", "displayName": "D", "executables": ["bin/sh"]}"#)
        XCTAssertThrowsError(try apps.app("org.example.d")) {
            XCTAssertTrue("\($0)".contains("not an absolute path"), "\($0)")
        }
        try write("org.example.e", #"{"format": 1, "bundleIdentifier": "org.example.e""#)
        XCTAssertThrowsError(try apps.app("org.example.e")) { XCTAssertTrue("\($0)".contains("malformed"), "\($0)") }
    }

    func testAFolderOthersCanWriteIsNotTrusted() throws {
        try write(
            "org.example.a",
            #"{"format": 1, "bundleIdentifier": "org.example.a", "displayName": "A", "executables": ["/bin/sh"]}"#)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
        XCTAssertThrowsError(try InstalledApps(directory: folder).app("org.example.a")) {
            XCTAssertTrue("\($0)".contains("not safe"), "\($0)")
        }
    }

    func testCodeFromAnywhereButRootsFilesIsForeign() {
        let system =
            """
            7f00-7f10 r-xp 00000000 08:01 1 /usr/lib/x86_64-linux-gnu/libc.so.6
            7f20-7f30 r-xp 00000000 00:00 0 [vdso]

            """
        XCTAssertNil(ProcessVetting.foreignCode(in: system + "7f40-7f50 rw-p 00000000 00:00 0 \n"))
        XCTAssertNotNil(
            ProcessVetting.foreignCode(in: system + "7f40-7f50 rwxp 00000000 00:00 0 \n"), "anonymous executable memory"
        )
        XCTAssertNotNil(
            ProcessVetting.foreignCode(in: system + "7f40-7f50 r-xp 00000000 08:01 2 /usr/lib/gone.so (deleted)\n"))
        XCTAssertNotNil(
            ProcessVetting.foreignCode(
                in: system + "7f40-7f50 r-xp 00000000 08:01 2 \(NSTemporaryDirectory())/missing-\(UUID()).so\n"))
    }

}
