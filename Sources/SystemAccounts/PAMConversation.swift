import CPam
import Glibc

/// What PAM's conversation function needs for one check: the password, once, and a record
/// of what the stack asked. It reaches the C callback through `appdata_ptr`, unretained:
/// `PAMAuthenticator` keeps it alive until pam_end.
final class PAMConversation {
    /// The password as a C string, wiped when the check ends.
    private var password: [CChar]
    private var answered = false
    /// What was asked that this conversation does not answer (the reason for PAM_CONV_ERR).
    private(set) var unexpectedRequest: String?
    /// Informational and error texts from the modules (an account module's reason).
    private(set) var messages: [String] = []

    init(password: String) {
        self.password = Array(password.utf8CString)
    }

    deinit { wipe() }

    /// Overwrites this copy of the password; explicit_bzero is not optimised away.
    func wipe() {
        password.withUnsafeMutableBytes { bytes in
            if let start = bytes.baseAddress { explicit_bzero(start, bytes.count) }
        }
    }

    /// A malloc'd copy of the password for PAM, which overwrites and frees it; nil for a
    /// second prompt (pam_unix asks once: a second one is another module's question).
    fileprivate func answerPasswordPrompt(_ prompt: String) -> UnsafeMutablePointer<CChar>? {
        guard !answered else {
            unexpectedRequest = "a second hidden prompt \"\(prompt)\""
            return nil
        }
        answered = true
        return password.withUnsafeBufferPointer { source in
            guard let copy = malloc(source.count)?.assumingMemoryBound(to: CChar.self) else { return nil }
            copy.initialize(from: source.baseAddress!, count: source.count)
            return copy
        }
    }

    fileprivate func refuse(_ request: String) { unexpectedRequest = request }
    fileprivate func note(_ message: String) { messages.append(message) }

    /// The C conversation function and the context pointer to pass with it.
    func callbacks() -> pam_conv {
        pam_conv(conv: pamConversation, appdata_ptr: Unmanaged.passUnretained(self).toOpaque())
    }
}

/// Answers PAM's messages: the hidden prompt with the password, texts by noting them, and
/// anything else by failing the whole conversation (PAM_CONV_ERR), answering nothing.
private func pamConversation(
    count: Int32, messages: UnsafeMutablePointer<UnsafePointer<pam_message>?>?,
    responses: UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?, context: UnsafeMutableRawPointer?
) -> Int32 {
    guard count > 0, count <= PAM_MAX_NUM_MSG, let messages, let responses, let context else { return PAM_CONV_ERR }
    let conversation = Unmanaged<PAMConversation>.fromOpaque(context).takeUnretainedValue()
    guard
        let replies = calloc(Int(count), MemoryLayout<pam_response>.stride)?.assumingMemoryBound(to: pam_response.self)
    else {
        return PAM_BUF_ERR
    }
    for index in 0..<Int(count) {
        guard let message = messages[index]?.pointee else {
            discard(replies, count: Int(count))
            return PAM_CONV_ERR
        }
        let text = message.msg.map { String(cString: $0) } ?? ""
        switch message.msg_style {
        case PAM_PROMPT_ECHO_OFF:
            guard let answer = conversation.answerPasswordPrompt(text) else {
                discard(replies, count: Int(count))
                return PAM_CONV_ERR
            }
            replies[index].resp = answer
        case PAM_TEXT_INFO, PAM_ERROR_MSG:
            conversation.note(text)
        case PAM_PROMPT_ECHO_ON:
            conversation.refuse("a visible prompt \"\(text)\"")
            discard(replies, count: Int(count))
            return PAM_CONV_ERR
        default:
            conversation.refuse("a message of style \(message.msg_style)")
            discard(replies, count: Int(count))
            return PAM_CONV_ERR
        }
    }
    responses.pointee = replies
    return PAM_SUCCESS
}

/// Frees replies PAM will not get, wiping any password copy first.
private func discard(_ replies: UnsafeMutablePointer<pam_response>, count: Int) {
    for index in 0..<count {
        if let answer = replies[index].resp {
            explicit_bzero(answer, strlen(answer))
            free(answer)
        }
    }
    free(replies)
}
