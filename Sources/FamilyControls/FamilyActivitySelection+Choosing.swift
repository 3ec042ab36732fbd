@_spi(Screenward) import ManagedSettings

extension FamilyActivitySelection {
    /// Not part of the API (Screenward's SPI): the app's tokens for items it names itself, as
    /// a scripted setup names them (the demo apps' `--discourage ID`, Worklog's default
    /// categories) with no person at the picker. `applications` are desktop ids
    /// (`firefox.desktop`) or `wmclass:<class>`, `categories` ids of the category table
    /// (`Game`, `Social`), `webDomains` websites (`youtube.com`). The app must be authorised.
    ///
    /// An app that could do this for any id would build a table from its tokens back to what
    /// they stand for: in an account a guardian manages the daemon refuses it to the child's
    /// apps (and answers a guardian's own copy, `screenward app run --user`); in a person's own
    /// account the agent answers it, as any program of theirs can read their ledger anyway
    /// (docs/picker.md, "What an app learns").
    ///
    /// Throws `FamilyControlsError.unavailable` when the app is not authorised (the message
    /// says so), `.invalidArgument` when an id names nothing.
    @_spi(Screenward) public static func choosing(
        applications: [String] = [], categories: [String] = [], webDomains: [String] = [],
        includeEntireCategory: Bool = false
    ) async throws -> FamilyActivitySelection {
        let request = SelectionRequest(
            applications: applications, categories: categories, webDomains: webDomains,
            includeEntireCategory: includeEntireCategory)
        do {
            return try await ScreenwardApp.client.call(AuthorizationMethods.issueSelection, request)
        } catch let error as ServiceError where error.code == .unauthorized {
            // Not `.restricted` ("a policy forbids it"): the app has only to ask first.
            throw FamilyControlsError.unavailable(error.message)
        } catch let error as ServiceError {
            throw FamilyControlsError.thrown(error)
        }
    }
}
