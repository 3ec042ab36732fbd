/// An error whose message is a `Phrase`: whoever shows it (the command line, in its
/// session's language) can translate it; its `description` is the English.
public protocol PhrasedError: Error, CustomStringConvertible {
    var phrase: Phrase { get }
}

extension PhrasedError {
    public var description: String { phrase.description }
}
