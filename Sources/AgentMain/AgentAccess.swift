@_spi(Screenward) import FamilyControls
import Foundation
import GLibRuntime
import Glibc
@_spi(Screenward) import ScreenTimeOwner
import ScreenwardCore
import ScreenwardIPC
import ShieldUI
import SystemAccounts

/// `authorization.request` for `.individual` in a person's own session: before an app holds
/// Screen Time access, the person says so in `AccessDialog`, which names the app and the
/// program that asked and takes their own password. One dialog at a time: apps that ask
/// meanwhile wait their turn, and an app asking again waits for the same answer.
///
/// Asked of nobody: an app that holds access already and a request for `.child` (the owner
/// answers both as before), and the person's own `screenward` command, the program beside
/// this agent (its store is the person's own rules).
final class AgentAccess {
    private let host: ServiceHost
    private let log: AgentLog
    /// Whether GTK runs on this display (the shield presenter started).
    private let canShowDialogs: () -> Bool
    private let texts = AccessDialogTexts.forLanguage(ShieldDefaults.language())
    /// The account whose password confirms; nil for root, whose click is enough.
    private let person: String?
    /// The apps asking, in order; the first has the dialog.
    private var asks: [Ask] = []
    private lazy var checked = LoopMailbox<(client: String, verdict: Result<PasswordVerdict, PAMError>)> {
        [unowned self] results in
        for (client, verdict) in results { passwordChecked(client, verdict) }
    }

    /// How many wrong passwords end a dialog as not allowed.
    static let tries = 3

    private struct Ask {
        let client: String
        let program: String
        let name: String
        let installed: Bool
        var waiting: [(peer: ServicePeer, id: UInt64)]
        var dialog: AccessDialog? = nil
        var wrong = 0
    }

    init(host: ServiceHost, log: AgentLog, canShowDialogs: @escaping () -> Bool) {
        self.host = host
        self.log = log
        self.canShowDialogs = canShowDialogs
        let uid = getuid()
        person = uid == 0 ? nil : (try? UnixAccount.withID(UserID(rawValue: uid)))?.name ?? "uid \(uid)"
    }

    /// An `authorization.request` frame: asked of the person, or passed to the owner.
    func received(_ frame: Data, from peer: ServicePeer) {
        let method = AuthorizationMethods.request
        guard let request = try? method.request(from: frame), request.body == .individual,
            (try? BundleIdentifier.validate(request.client)) != nil,
            let held = try? host.withService({ try $0.holdsAuthorization(request.client) }), !held
        else {
            return host.received(frame: frame, from: peer)
        }
        let client = request.client
        do {
            let program = try Self.program(of: peer)
            if program == Self.ownCommand {
                log.info("access: the person's own screenward command holds Screen Time access")
                return grant(client, to: [(peer, request.id)])
            }
            if let index = asks.firstIndex(where: { $0.client == client }) {
                asks[index].waiting.append((peer, request.id))
                return
            }
            guard canShowDialogs() else {
                // swift-format-ignore
                throw ServiceError(.unsupported, Phrase("{client} asks for Screen Time access, and the agent cannot ask you: it shows no windows on this display", context: "service", ["client": client]))
            }
            let installed = Self.installedApp(client, program: program)
            asks.append(
                Ask(
                    client: client, program: program, name: installed?.displayName ?? client,
                    installed: installed != nil, waiting: [(peer, request.id)]))
            log.info("access: \(client) (\(program)) asks for Screen Time access")
            showNext()
        } catch let error as ServiceError {
            peer.send(method.replyFrame(id: request.id, .failure(error)))
        } catch {
            peer.send(method.replyFrame(id: request.id, .failure(ServiceError(.internalFailure, "\(error)"))))
        }
    }

    /// A connection closed: its requests stop waiting; an app nobody waits for any more is
    /// not asked about (its dialog closes).
    func disconnected(_ peer: ServicePeer) {
        for index in asks.indices { asks[index].waiting.removeAll { $0.peer == peer } }
        let gone = asks.filter(\.waiting.isEmpty)
        guard !gone.isEmpty else { return }
        asks.removeAll(where: \.waiting.isEmpty)
        for ask in gone {
            log.info("access: \(ask.client) stopped waiting; its question is withdrawn")
            ask.dialog?.close()
        }
        showNext()
    }

    // MARK: The dialog

    private func showNext() {
        guard let ask = asks.first, ask.dialog == nil else { return }
        let client = ask.client
        asks[0].dialog = AccessDialog(
            app: ask.name, program: ask.program, installed: ask.installed, user: person, texts: texts,
            onAllow: { [unowned self] password in allowed(client, password: password) },
            onDontAllow: { [unowned self] in
                finish(client, .failure(Self.notAllowed(client)), because: "the person did not allow it")
            })
    }

    private func allowed(_ client: String, password: String) {
        guard person != nil else { return finish(client, nil, because: "the person allowed it") }
        let checked = checked
        // pam_unix takes about two seconds to say no: off the loop, which draws the shields.
        Thread.detachNewThread {
            let verdict = Result { () throws(PAMError) in try PAMAuthenticator().verifyOwn(password: password) }
            checked.post((client, verdict))
        }
    }

    private func passwordChecked(_ client: String, _ verdict: Result<PasswordVerdict, PAMError>) {
        guard let index = asks.firstIndex(where: { $0.client == client }) else { return }
        switch verdict {
        case .success(.accepted):
            finish(client, nil, because: "the person allowed it with their password")
        case .success(.rejected):
            asks[index].wrong += 1
            guard asks[index].wrong < Self.tries else {
                return finish(
                    client, .failure(Self.notAllowed(client)), because: "\(Self.tries) wrong passwords in a row")
            }
            log.info("access: a wrong password for \(client)'s access")
            asks[index].dialog?.wrongPassword()
        case .success(.accountUnusable(let reason)):
            // swift-format-ignore
            let error = ServiceError(.authorizationCanceled, Phrase("{client} was not allowed Screen Time access: your account cannot confirm it now ({reason})", context: "service", ["client": client, "reason": reason]))
            finish(client, .failure(error), because: "the account cannot be used: \(reason)")
        case .failure(let problem):
            // swift-format-ignore
            let error = ServiceError(.unsupported, Phrase("{client} was not allowed Screen Time access: your password cannot be checked here ({problem})", context: "service", ["client": client, "problem": problem.description]))
            finish(client, .failure(error), because: "the password cannot be checked: \(problem)")
        }
    }

    /// Ends `client`'s question: granted when `refusal` is nil; every waiting request is
    /// answered, and the next app's dialog shows.
    private func finish(_ client: String, _ refusal: Result<AuthorizationStatus, ServiceError>?, because why: String) {
        guard let index = asks.firstIndex(where: { $0.client == client }) else { return }
        let ask = asks.remove(at: index)
        ask.dialog?.close()
        log.info("access: \(client): \(refusal == nil ? "allowed" : "not allowed") (\(why))")
        if let refusal {
            for (peer, id) in ask.waiting { peer.send(AuthorizationMethods.request.replyFrame(id: id, refusal)) }
        } else {
            grant(client, to: ask.waiting)
        }
        showNext()
    }

    private func grant(_ client: String, to waiting: [(peer: ServicePeer, id: UInt64)]) {
        let result: Result<AuthorizationStatus, ServiceError>
        var pushes: [Delivery] = []
        do {
            pushes = try host.withService { try $0.grantIndividual(client) }
            result = .success(.approved)
        } catch {
            log.error("access: \(client)'s access could not be recorded: \(error)")
            result = .failure(error as? ServiceError ?? ServiceError(.internalFailure, "\(error)"))
        }
        for (peer, id) in waiting { peer.send(AuthorizationMethods.request.replyFrame(id: id, result)) }
        pushes.forEach { $0.send() }
    }

    private static func notAllowed(_ client: String) -> ServiceError {
        ServiceError(
            .authorizationCanceled,
            Phrase("you did not allow {client} Screen Time access", context: "service", ["client": client]))
    }

    // MARK: Who asks

    /// The executable of the process on the other end of `peer`.
    private static func program(of peer: ServicePeer) throws -> String {
        guard let pid = peer.credentials?.pid,
            let program = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        else {
            // swift-format-ignore
            throw ServiceError(.unauthorized, Phrase("the agent cannot tell which program asks for Screen Time access, so it does not ask you", context: "service"))
        }
        return program
    }

    /// The `screenward` command beside this agent (in the package, one multi-call program).
    private static let ownCommand: String? = {
        guard let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let beside = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("screenward")
        return beside.resolvingSymlinksInPath().path
    }()

    /// The installed app named `client` whose programs include `program`, if there is one.
    private static func installedApp(_ client: String, program: String) -> InstalledApp? {
        let apps = InstalledApps.all(in: InstalledApps.forPerson(uid: getuid())).apps
        guard let app = apps[client], app.executables.contains(program) else { return nil }
        return app
    }
}
