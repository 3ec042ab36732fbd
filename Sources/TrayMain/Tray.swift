import Foundation
import GLibRuntime
import ScreenwardCore
import ScreenwardIPC
import TrayUI
import X11Session

/// The tray's icon and menu, rebuilt from the owner's figures at each refresh.
final class Tray {
    private let source: TraySource
    private let indicator: TrayIndicator
    private let icons: URL
    private let texts: RuleTexts
    private let language: String
    private let notifications = DesktopNotifications()
    /// Requests a guardian has been told of.
    private var announced: Set<String> = []
    private var lastMenu: String?
    /// Whether the daemon has heard which language this managed session speaks.
    private var languageTold = false

    init(source: TraySource, indicator: TrayIndicator, icons: URL, texts: RuleTexts, language: String) {
        self.source = source
        self.indicator = indicator
        self.icons = icons
        self.texts = texts
        self.language = language
    }

    func text(_ key: String, _ values: [String: String] = [:]) -> String { texts.text(key, language: language, values) }

    func refresh() {
        let items: [TrayMenuItem]
        let face: TrayIconPainter.Face
        do {
            switch source {
            case .own, .managed:
                if source == .managed, !languageTold { tellTheLanguage() }
                let status = try source.connection.call(RulesMethods.status, RulesQuery(user: nil, language: language))
                (items, face) = personMenu(status)
            case .guardian:
                (items, face) = try guardianMenu()
            }
        } catch {
            let reason = (error as? ServiceError)?.message ?? "\(error)"
            (items, face) = (
                [.label(text("trayUnavailable", ["reason": String(reason.prefix(80))]))],
                TrayIconPainter.Face(fractionLeft: nil, text: "?")
            )
        }
        // The same menu is not rebuilt, nor an open one (it would close under the pointer).
        let signature = describe(items)
        if signature != lastMenu, !indicator.isMenuOpen {
            indicator.setMenu(items)
            lastMenu = signature
        }
        if let name = try? TrayIconPainter.paint(face, in: icons) { indicator.setIcon(name, description: face.text) }
    }

    /// The tray is the managed session's one Screenward program with the session's own
    /// environment (the daemon starts the agent with its own): it tells the daemon the
    /// session's language, for the rules' notifications and the agent's shields. Until the
    /// daemon has heard it, each refresh tries again.
    private func tellTheLanguage() {
        do {
            _ = try source.connection.call(ChildMethods.sessionLanguage, SpokenLanguage(language: language))
            languageTold = true
        } catch {
            FileHandle.standardError.write(
                Data("screenward-tray: the daemon did not hear the session's language: \(error)\n".utf8))
        }
    }

    private func describe(_ items: [TrayMenuItem]) -> String {
        items.map { item in
            switch item {
            case .label(let text), .action(let text, _): text
            case .submenu(let text, let children): "\(text)[\(describe(children))]"
            case .separator: "—"
            }
        }.joined(separator: "|")
    }

    // MARK: A person's own rules, or a managed user's

    private func personMenu(_ status: RulesStatus) -> ([TrayMenuItem], TrayIconPainter.Face) {
        var items: [TrayMenuItem] = [.label(text("trayTitle")), .separator]
        if let paused = status.pausedUntil { items.append(.label(text("trayPaused", ["end": clock(paused)]))) }
        var tightest: (left: TimeInterval, allowance: TimeInterval)?
        var usedUp: [String] = []
        for rule in status.rules {
            let values = ["rule": rule.name]
            switch rule.kind {
            case .limit:
                guard rule.appliesToday else {
                    items.append(.label(text("trayNotToday", values)))
                    continue
                }
                guard let allowance = rule.allowance, let remaining = rule.remaining else {
                    items.append(.label(text("trayUnlimited", values)))
                    continue
                }
                if remaining <= 0 {
                    usedUp.append(rule.name)
                    items.append(.label(text("trayUsedUp", values.merging(["reset": clock(rule.resetsAt)]) { $1 })))
                } else {
                    items.append(
                        .label(
                            text(
                                "trayLeft",
                                values.merging(["left": RuleTexts.span(remaining, language: language)]) { $1 })))
                }
                if tightest.map({ remaining < $0.left }) ?? true { tightest = (remaining, allowance) }
            case .downtime:
                guard let interval = rule.downtime else { continue }
                if rule.isDowntimeNow {
                    items.append(.label(text("trayDowntimeNow", values.merging(["end": clock(interval.end)]) { $1 })))
                    tightest = (0, 1)
                } else if interval.start.timeIntervalSince(status.at) < 24 * 3600 {
                    // The next one within a day, today's or tonight's after midnight: a clock
                    // time alone names it without doubt.
                    items.append(
                        .label(
                            text(
                                "trayDowntimeAhead",
                                values.merging(["start": clock(interval.start), "end": clock(interval.end)]) { $1 })))
                }
            }
        }
        if status.rules.isEmpty { items.append(.label(text("trayNoRules"))) }
        // More time: a managed user asks a guardian; a person gives themself 15 minutes.
        let connection = source.connection
        let more: [TrayMenuItem] = usedUp.map { name in
            switch source {
            case .managed:
                .action(name) { _ = try? connection.call(RulesMethods.ask, ExtraTimeRequest(user: nil, rule: name)) }
            default:
                .action(text("trayFifteen", ["rule": name])) {
                    _ = try? connection.call(RulesMethods.extraTime, ExtraTimeRequest(user: nil, rule: name))
                }
            }
        }
        if !more.isEmpty {
            items.append(.separator)
            items += source == .managed ? [.submenu(text("trayAskMore"), more)] : more
        }
        if source == .managed {
            // Behind a guardian's one-time code, in a dialog the daemon puts up in this session;
            // the answer may take minutes, so it is awaited off the menu's thread.
            let notifications = notifications
            let actions: [TrayMenuItem] = GuardianAction.allCases.map { action in
                .action(text("trayGuardian.\(action.rawValue)")) {
                    DispatchQueue.global().async {
                        do {
                            let outcome = try connection.call(
                                RulesMethods.guardianAction, GuardianActionRequest(user: nil, action: action),
                                timeout: .seconds(GuardianWait.seconds))
                            notifications.send(summary: outcome.message, body: "") { _ in }
                        } catch {
                            notifications.send(summary: (error as? ServiceError)?.message ?? "\(error)", body: "") {
                                _ in
                            }
                        }
                    }
                }
            }
            items += [.separator, .submenu(text("trayGuardian"), actions)]
        }
        return (items, face(tightest))
    }

    /// The icon: the tightest rule's share left and time left (minutes under an hour).
    private func face(_ tightest: (left: TimeInterval, allowance: TimeInterval)?) -> TrayIconPainter.Face {
        guard let tightest else { return TrayIconPainter.Face(fractionLeft: nil, text: "") }
        let left = tightest.left
        let figure =
            left <= 0 ? "!" : left >= 3600 ? "\(Int(left / 3600))h" : "\(max(1, Int((left / 60).rounded(.up))))"
        return TrayIconPainter.Face(
            fractionLeft: tightest.allowance > 0 ? max(0, left / tightest.allowance) : 0, text: figure)
    }

    private func clock(_ date: Date?) -> String {
        guard let date else { return "?" }
        let parts = Calendar.current.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    // MARK: A guardian's

    private func guardianMenu() throws -> ([TrayMenuItem], TrayIconPainter.Face) {
        let connection = source.connection
        var items: [TrayMenuItem] = [.label(text("trayManagedUsers"))]
        for user in try connection.call(ChildMethods.list, Empty()) {
            let usage = try? connection.call(
                ChildMethods.usage, UsageQuery(user: user.name, since: "today", until: "now"))
            let used = RuleTexts.span(usage?.apps.reduce(0) { $0 + $1.seconds } ?? 0, language: language)
            let status = try? connection.call(RulesMethods.status, RulesQuery(user: user.name, language: language))
            let left = status?.rules.compactMap(\.remaining).min()
            var title =
                left.map {
                    text(
                        "trayGuardianUserLeft",
                        ["user": user.name, "used": used, "left": RuleTexts.span($0, language: language)])
                }
                ?? text("trayGuardianUser", ["user": user.name, "used": used])
            if let paused = status?.pausedUntil { title += " · " + text("trayPaused", ["end": clock(paused)]) }
            let name = user.name
            // The apps holding Screen Time access for them, each to take away.
            let apps = (try? connection.call(ChildMethods.apps, AppsQuery(user: name))) ?? []
            let revocations: [TrayMenuItem] = apps.map { app in
                .action(text("trayRevokeApp", ["app": app.app])) {
                    _ = try? connection.call(ChildMethods.revokeApp, AppRevocation(user: name, app: app.app))
                }
            }
            items.append(
                .submenu(
                    title,
                    [
                        .action(text("trayLockUser", ["user": name])) {
                            _ = try? connection.call(ChildMethods.lock, UserName(name))
                        },
                        .action(text("trayPauseUser", ["user": name])) {
                            _ = try? connection.call(RulesMethods.pause, PauseRequest(user: name, seconds: 3600))
                        },
                    ] + (revocations.isEmpty ? [] : [.separator] + revocations)))
        }
        items += [.separator, .label(text("trayRequests"))]
        let pending = try connection.call(RulesMethods.requests, RulesQuery(user: nil, language: language)).filter {
            $0.state == .pending
        }
        // What an app waits for a guardian's approval for (the dialog at the child's desk) is a request too.
        let asks = try connection.call(ChildMethods.waitingAsks, RulesQuery(user: nil, language: language))
        if pending.isEmpty, asks.isEmpty { items.append(.label(text("trayNoRequests"))) }
        for request in pending {
            let user = request.user ?? "?"
            // One asked on another computer of the household is that computer's (sam@laptop).
            let who = request.computer.map { "\(user)@\($0)" } ?? user
            let title = text("trayRequest", ["user": who, "app": request.applicationName, "rule": request.rule])
            func answer(_ approve: Bool, _ seconds: TimeInterval?) -> @Sendable () -> Void {
                {
                    _ = try? connection.call(
                        RulesMethods.answer,
                        RequestAnswer(
                            user: user, id: request.id, approve: approve, seconds: seconds, computer: request.computer))
                }
            }
            items.append(
                .submenu(
                    title,
                    [
                        .action(text("trayApprove15"), answer(true, 900)),
                        .action(text("trayApprove60"), answer(true, 3600)),
                        .action(text("trayApproveDay"), answer(true, nil)), .separator,
                        .action(text("trayDeny"), answer(false, nil)),
                    ]))
            let key = "\(who)/\(request.id)"
            if announced.insert(key).inserted {
                notifications.send(
                    summary: text("moreTimeRequestTitle", ["user": user]),
                    body: text("moreTimeRequestBody", ["app": request.applicationName, "rule": request.rule])
                ) { _ in }
            }
        }
        for ask in asks {
            let answer: (Bool) -> @Sendable () -> Void = { approve in
                { _ = try? connection.call(ChildMethods.answerAsk, WaitingAskAnswer(id: ask.id, approve: approve)) }
            }
            items.append(
                .submenu(
                    // Every question names the child it is about.
                    ask.question,
                    [.action(text("trayApprove"), answer(true)), .separator, .action(text("trayDeny"), answer(false))]))
            if announced.insert("\(ask.user)/a\(ask.id)").inserted {
                notifications.send(
                    summary: text("appAskTitle", ["user": ask.user, "app": ask.appName]),
                    body: text("appAskBody", ["question": ask.question])
                ) { _ in }
            }
        }
        let waiting = pending.count + asks.count
        return (items, TrayIconPainter.Face(fractionLeft: nil, text: waiting == 0 ? "" : "\(waiting)"))
    }
}

/// How long the tray waits for a guardian's answer: the dialog's own limit, and a little.
enum GuardianWait {
    static let seconds: Int64 = 310
}
