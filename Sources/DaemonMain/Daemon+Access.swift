import Foundation
@_spi(Screenward) import ScreenwardCore

/// "Ask for access" on an app's shield: the guardians are asked, and an approval goes to the
/// app's action delegate, which lifts what it shielded as it decides.
extension Daemon {
    /// `app`'s action delegate answered `.askForAccess` on `item`'s shield in `user`'s session.
    func accessAsked(_ app: String, _ item: ShieldedItem, by user: ManagedUser) {
        let installed =
            extensions?.installedApp(app) ?? InstalledApp(bundleIdentifier: app, displayName: app, executables: [])
        let asked = apps.approvals.beginAccess(app: installed, item: item.name, child: user.name, uid: user.uid) {
            [unowned self] outcome in
            guard case .approved(let guardian) = outcome, let owner = owners[user.uid] else { return }
            let deliveries = owner.service.approveAccess(owner: app, item: item, by: guardian)
            if deliveries.isEmpty {
                // Told when it attaches.
                extensions?.wantShieldExtension(.shieldAction, of: app, uid: user.uid)
            }
            deliveries.forEach { $0.send() }
            log.info("\(user.name): \(guardian) gave access to \(item.name); \(app)'s action delegate is told")
        }
        if asked {
            log.info("\(user.name) asked the guardians for access to \(item.name) (shielded by \(app))")
            scheduleAskExpiry()
        }
    }
}

extension ShieldedItem {
    /// What the shield covers, by the name people know it by.
    var name: String {
        switch self {
        case .application(_, _, let name), .applicationInCategory(_, _, let name, _, _): name
        case .webDomain(_, let domain), .webDomainInCategory(_, let domain, _, _): domain
        }
    }
}
