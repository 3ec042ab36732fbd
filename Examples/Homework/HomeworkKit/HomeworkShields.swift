// The custom shields of Homework, the WWDC21 demo app ("Meet the Screen Time API"):
// a branded look, and an "Ask for access" button that keeps the shield up and redraws
// it as waiting while a guardian decides. The talk shows these two extensions as
// subclasses with one override each; they are written here the same way.
import Foundation
import ManagedSettings
import ManagedSettingsUI

/// Homework's look: its green, its own words, and "Ask for access".
open class HomeworkShieldConfiguration: ShieldConfigurationDataSource {
    public static let green = ShieldColor(red: 0.18, green: 0.49, blue: 0.20)
    public static let amber = ShieldColor(red: 0.98, green: 0.66, blue: 0.15)

    let requests = HomeworkStorage.standard.requests

    public required init() {}

    open override func configuration(shielding application: Application) -> ShieldConfiguration {
        let name = application.localizedDisplayName ?? "This app"
        if let token = application.token, requests.asked().contains(token) {
            return configuration(waitingFor: name)
        }
        return ShieldConfiguration(
            backgroundBlurStyle: .systemMaterialDark,
            backgroundColor: Self.green,
            icon: ShieldIcon(systemName: "accessories-dictionary"),
            title: .init(text: "Homework first!", color: .white),
            subtitle: .init(
                text: "\(name) opens again once you've spent some time reading, learning or being creative.",
                color: .white),
            primaryButtonLabel: .init(text: "Close \(name)", color: Self.green),
            primaryButtonBackgroundColor: .white,
            secondaryButtonLabel: .init(text: "Ask for access", color: .white))
    }

    /// The shield while a guardian decides.
    func configuration(waitingFor name: String) -> ShieldConfiguration {
        ShieldConfiguration(
            backgroundBlurStyle: .systemThinMaterialLight,
            backgroundColor: Self.amber,
            icon: ShieldIcon(systemName: "appointment-soon"),
            title: .init(text: "Waiting for a guardian…", color: .black),
            subtitle: .init(
                text: "You asked to use \(name). You'll be able to open it as soon as a guardian says yes.",
                color: .black),
            primaryButtonLabel: .init(text: "OK", color: .white),
            primaryButtonBackgroundColor: Self.green)
    }

    open override func configuration(shielding application: Application, in category: ActivityCategory)
        -> ShieldConfiguration
    {
        if let token = category.token, requests.askedCategories().contains(token) {
            return configuration(waitingFor: application.localizedDisplayName ?? "This app")
        }
        return configuration(shielding: application)
    }
}

/// Homework's buttons: the primary closes the app; "Ask for access" records the request
/// and asks the guardians (`.askForAccess`), so the shield is drawn again as waiting. A
/// guardian's approval lifts the shield for 15 minutes: the monitor puts it back when that
/// interval ends, unless the encouraged apps have been used for the threshold by then.
open class HomeworkShieldActions: ShieldActionDelegate {
    let requests = HomeworkStorage.standard.requests
    let store = ManagedSettingsStore(named: .homework)

    public required init() {}

    open override func handle(
        action: ShieldAction, for application: ApplicationToken,
        completionHandler: @escaping (ShieldActionResponse) -> Void
    ) {
        switch action {
        case .primaryButtonPressed:
            completionHandler(.close)
        case .secondaryButtonPressed:
            do {
                try requests.ask(for: application)
                completionHandler(.askForAccess)
            } catch {
                say("could not record the request for access: \(error)")
                completionHandler(.none)
            }
        }
    }

    open override func handle(
        action: ShieldAction, for category: ActivityCategoryToken,
        completionHandler: @escaping (ShieldActionResponse) -> Void
    ) {
        switch action {
        case .primaryButtonPressed:
            completionHandler(.close)
        case .secondaryButtonPressed:
            do {
                try requests.ask(forCategory: category)
                completionHandler(.askForAccess)
            } catch {
                say("could not record the request for access: \(error)")
                completionHandler(.none)
            }
        }
    }

    open override func guardianApprovedAccess(to application: ApplicationToken, by guardian: String) {
        do {
            store.shield.applications?.remove(application)
            try requests.answered(application)
            try Homework.shieldAgain(after: .seconds(15 * 60))
            say("\(guardian) gave access for 15 minutes")
        } catch {
            say("could not give the access \(guardian) approved: \(error)")
        }
    }

    open override func guardianApprovedAccess(
        to category: ActivityCategoryToken, application: ApplicationToken?, webDomain: WebDomainToken?,
        by guardian: String
    ) {
        do {
            if case .specific(let categories, let except) = store.shield.applicationCategories {
                var rest = categories
                rest.remove(category)
                store.shield.applicationCategories = rest.isEmpty ? nil : .specific(rest, except: except)
            }
            try requests.answered(category: category)
            try Homework.shieldAgain(after: .seconds(15 * 60))
            say("\(guardian) gave access to a category for 15 minutes")
        } catch {
            say("could not give the access \(guardian) approved: \(error)")
        }
    }
}
