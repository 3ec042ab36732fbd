@_spi(Screenward) import ManagedSettings

extension FamilyActivitySelection {
    /// Screenward's addition, for programs with no person at the picker (a script, a setup's
    /// defaults, a test): the selection the activity picker hands back when exactly these are
    /// ticked, with the app's own tokens. `applications` are desktop ids (`firefox.desktop`) or
    /// `wmclass:<class>`, `categories` ids of the category table (`Game`, `Social`),
    /// `webDomains` websites (`youtube.com`). The app must be authorised, as for the picker.
    ///
    /// Throws `FamilyControlsError.unavailable` when the app is not authorised (the message
    /// says so), `.invalidArgument` when an id names nothing.
    public static func choosing(
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
