/// An error whose message is a `Phrase`: whoever shows it (the command line, in its
/// session's language) can translate it; its `description` is the English.
public protocol PhrasedError: Error, CustomStringConvertible {
    var phrase: Phrase { get }
}

extension PhrasedError {
    public var description: String { phrase.description }
}

extension Phrase.Value {
    /// What `error` says, to fill a placeholder: its phrase when it has one (an agent's or a
    /// daemon's `ServiceError`, any `PhrasedError`), translated with the text around it; else
    /// its own words.
    public static func said(by error: any Error) -> Phrase.Value {
        switch error {
        case let error as ServiceError: error.phrase.map(Phrase.Value.phrase) ?? .text(error.message)
        case let error as any PhrasedError: .phrase(error.phrase)
        default: .text(String(describing: error))
        }
    }
}
