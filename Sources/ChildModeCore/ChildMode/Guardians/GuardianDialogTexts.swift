import Foundation

/// The words of the guardian's dialog (the agent shows it in a child's session), in
/// English, Korean and Vietnamese, the languages of the shield's texts; English for any
/// other. The daemon's verdicts (a wrong code, a wait) come in its own words.
public struct GuardianDialogTexts: Sendable, Equatable {
    public var explanation: String
    public var notEnrolledHint: String
    public var guardian: String
    public var code: String
    public var codePlaceholder: String
    public var cancel: String
    public var approve: String
    public var checking: String
    public var chooseGuardian: String
    /// What the field held was not a code (the login password by habit, say): nothing
    /// was sent.
    public var notACode: String

    public static let english = GuardianDialogTexts(
        explanation:
            """
            A guardian approves with the 6-digit code their authenticator app shows for Screenward. \
            Never type a password here.
            """,
        notEnrolledHint:
            """
            No authenticator set up? Approve from your own account (your Screenward tray, or \
            `screenward request approve`), or set one up there with `screenward guardian enroll`.
            """,
        guardian: "Guardian", code: "One-time code", codePlaceholder: "6-digit code", cancel: "Cancel",
        approve: "Approve", checking: "Checking…",
        chooseGuardian: "Choose a guardian's account.",
        notACode: "That is not a code: type the 6 digits your authenticator app shows for Screenward.")

    public static let korean = GuardianDialogTexts(
        explanation:
            """
            보호자는 인증 앱이 Screenward용으로 보여 주는 6자리 코드로 승인해요. \
            여기에는 비밀번호를 절대 입력하지 마세요.
            """,
        notEnrolledHint:
            """
            인증 앱을 설정하지 않았나요? 본인 계정에서 승인하거나(Screenward 트레이 \
            또는 `screenward request approve`), 거기서 `screenward guardian enroll`로 설정하세요.
            """,
        guardian: "보호자", code: "일회용 코드", codePlaceholder: "6자리 코드", cancel: "취소",
        approve: "승인", checking: "확인하는 중…",
        chooseGuardian: "보호자 계정을 선택하세요.",
        notACode:
            """
            코드가 아니에요. \
            인증 앱이 Screenward용으로 보여 주는 6자리 숫자를 입력하세요.
            """)

    public static let vietnamese = GuardianDialogTexts(
        explanation:
            """
            Người giám hộ phê duyệt bằng mã 6 chữ số \
            mà ứng dụng xác thực hiển thị cho Screenward. Đừng bao giờ nhập mật khẩu ở đây.
            """,
        notEnrolledHint:
            """
            Chưa thiết lập ứng dụng xác thực? \
            Hãy phê duyệt từ tài khoản của bạn (khay Screenward hoặc `screenward request approve`), \
            hoặc thiết lập ở đó bằng `screenward guardian enroll`.
            """,
        guardian: "Người giám hộ", code: "Mã dùng một lần", codePlaceholder: "Mã 6 chữ số",
        cancel: "Hủy", approve: "Phê duyệt", checking: "Đang kiểm tra…",
        chooseGuardian: "Hãy chọn tài khoản của người giám hộ.",
        notACode:
            """
            Đó không phải là mã: \
            hãy nhập 6 chữ số mà ứng dụng xác thực hiển thị cho Screenward.
            """)

    /// The texts for `language` (`ko`, `vi`; English otherwise).
    public static func forLanguage(_ language: String) -> GuardianDialogTexts {
        switch language {
        case "ko": korean
        case "vi": vietnamese
        default: english
        }
    }
}
