import JSONText

/// A survey attached to a paywall (SuperwallKit's `Survey`): a question shown as the paywall
/// closes, on the user's close or after a purchase.
public struct Survey: Sendable, Equatable {
    public var id: String
    /// A user is asked at most one survey per assignment key.
    public var assignmentKey: String
    public var title: String
    public var message: String
    public var options: [Option]
    public var presentationCondition: Condition
    /// The chance, from 0 to 1, that a user who reaches the survey is shown it rather than
    /// held out.
    public var presentationProbability: Double
    /// Whether the host offers an "Other" option with a free-text answer.
    public var includeOtherOption: Bool
    /// Whether the host offers a button that closes the survey unanswered.
    public var includeCloseOption: Bool

    public struct Option: Sendable, Equatable {
        public var id: String
        public var title: String

        public init(id: String, title: String) {
            self.id = id
            self.title = title
        }

        /// SuperwallKit's "Other" option, answered with free text.
        public static let other = Option(id: "000", title: "Other")
    }

    public enum Condition: String, Sendable, CaseIterable {
        case onManualClose = "ON_MANUAL_CLOSE"
        case onPurchase = "ON_PURCHASE"
    }

    public init(
        id: String,
        assignmentKey: String,
        title: String,
        message: String,
        options: [Option],
        presentationCondition: Condition,
        presentationProbability: Double,
        includeOtherOption: Bool,
        includeCloseOption: Bool
    ) {
        self.id = id
        self.assignmentKey = assignmentKey
        self.title = title
        self.message = message
        self.options = options
        self.presentationCondition = presentationCondition
        self.presentationProbability = presentationProbability
        self.includeOtherOption = includeOtherOption
        self.includeCloseOption = includeCloseOption
    }

    /// Whether a paywall closing with `result` for `closeReason` asks this survey
    /// (SuperwallKit's `SurveyManager.selectSurvey`): a user's close of a declined paywall, or a
    /// purchase however the paywall then closes.
    func isAsked(whenClosing result: PaywallResult, for closeReason: PaywallCloseReason) -> Bool {
        switch presentationCondition {
        case .onManualClose: return result == .declined && closeReason == .manualClose
        case .onPurchase:
            if case .purchased = result { return true }
            return false
        }
    }

    /// The option an answer names: one of the survey's, or "Other" when the survey offers it.
    func option(withId id: String) -> Option? {
        if includeOtherOption, id == Option.other.id { return .other }
        return options.first { $0.id == id }
    }

    /// `survey_response`'s params and custom params when the user chose `optionId` on the
    /// paywall `info` (with `customResponse`, the text of "Other"): nil for an answer the
    /// survey does not allow, an unknown option or "Other" without text.
    func response(
        choosing optionId: String,
        customResponse: String?,
        on info: PaywallInfo
    ) -> (parameters: [String: JSON], custom: [String: JSON])? {
        guard let option = option(withId: optionId) else { return nil }
        let text = option == .other ? customResponse?.trimmingCharacters(in: .whitespacesAndNewlines) : nil
        if option == .other, text?.isEmpty != false { return nil }
        var parameters = info.placementParameters
        parameters["survey_id"] = .string(id)
        parameters["survey_assignment_key"] = .string(assignmentKey)
        parameters["survey_selected_option_id"] = .string(option.id)
        var custom = info.audienceFilterParameters
        custom["survey_selected_option_title"] = .string(option.title)
        custom["survey_custom_response"] = text.map(JSON.string) ?? .null
        return (parameters, custom)
    }
}

extension Survey: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case id
        case assignmentKey = "assignment_key"
        case title, message, options
        case presentationCondition = "presentation_condition"
        case presentationProbability = "presentation_probability"
        case includeOtherOption = "include_other_option"
        case includeCloseOption = "include_close_option"
    }

    /// Every key is required, and an unknown condition fails: the paywall then drops the
    /// survey, as SuperwallKit's lossy array does.
    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        id = try container.decode(String.self, forKey: .id)
        assignmentKey = try container.decode(String.self, forKey: .assignmentKey)
        title = try container.decode(String.self, forKey: .title)
        message = try container.decode(String.self, forKey: .message)
        options = try container.decodeArray(Option.self, forKey: .options)
        presentationCondition = try container.decodeEnum(Condition.self, forKey: .presentationCondition)
        presentationProbability = try container.decode(Double.self, forKey: .presentationProbability)
        includeOtherOption = try container.decode(Bool.self, forKey: .includeOtherOption)
        includeCloseOption = try container.decode(Bool.self, forKey: .includeCloseOption)
    }
}

extension Survey.Option: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case id, title
    }

    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
    }
}
