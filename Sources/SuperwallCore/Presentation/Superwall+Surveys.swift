/// How a paywall's survey went, as `paywall_close` reports it (SuperwallKit's
/// `SurveyPresentationResult`, whose `noShow` is nil here).
enum SurveyPresentation: String, Sendable {
    /// The host was asked to show it.
    case show
    /// The user drew the holdout of the survey's presentation probability.
    case holdout
}

extension Superwall {
    /// SuperwallKit's `SurveyManager.presentSurveyIfAvailable`, run as a paywall starts to
    /// close: the first of its surveys whose condition the close meets is asked, unless this
    /// user was already assessed for its assignment key. The assessment is stored whatever it
    /// draws, so the probability is drawn once per user and key.
    ///
    /// Answers false when the user's response presents another paywall in this one's place:
    /// `survey_response`'s implicit trigger then closes this one for the next.
    func askSurvey(
        of current: PresentedPaywall,
        closingAs result: PaywallResult,
        for closeReason: PaywallCloseReason
    ) async -> Bool {
        guard let survey = current.paywall.surveys.first(where: { $0.isAsked(whenClosing: result, for: closeReason) }),
            let presenter = host.presenter, presenter.canPresent, let store,
            (try? store.value(.surveyAssignmentKey)) != survey.assignmentKey
        else { return true }
        try? store.set(survey.assignmentKey, for: .surveyAssignmentKey)
        guard drawsSurvey(survey.presentationProbability) else {
            noteSurvey(.holdout, on: current)
            return true
        }
        var reordered = survey
        reordered.options = shuffled(survey.options)
        let shown = reordered
        let (sessionId, info, limit) = (current.id, current.info, timeouts.survey)
        let answer: SurveyAnswer?? = await withDeadline(limit, fallback: .some(nil)) {
            do {
                return .some(try await presenter.presentSurvey(shown, sessionId: sessionId, info: info))
            } catch {
                return .none
            }
        }
        switch answer {
        case .none:
            // The host could not show it.
            return true
        case .some(nil):
            // Shown, and not answered in time: the paywall closes as if it had been.
            noteSurvey(.show, on: current)
            return true
        case .some(.some(let answer)):
            noteSurvey(.show, on: current)
            return await record(answer, to: survey, on: current)
        }
    }

    /// `survey_close`, or `survey_response` with its implicit trigger. An answer the survey
    /// does not allow (an unknown option, "Other" without text, a close it does not offer)
    /// records nothing.
    private func record(_ answer: SurveyAnswer, to survey: Survey, on current: PresentedPaywall) async -> Bool {
        switch answer {
        case .close:
            if survey.includeCloseOption { track("survey_close") }
            return true
        case .response(let optionId, let customResponse):
            guard let option = survey.option(withId: optionId) else { return true }
            let text = option == .other ? customResponse?.trimmingCharacters(in: .whitespacesAndNewlines) : nil
            if option == .other, text?.isEmpty != false { return true }
            var parameters = current.info.placementParameters
            parameters["survey_id"] = .string(survey.id)
            parameters["survey_assignment_key"] = .string(survey.assignmentKey)
            parameters["survey_selected_option_id"] = .string(option.id)
            var custom = current.info.audienceFilterParameters
            custom["survey_selected_option_title"] = .string(option.title)
            custom["survey_custom_response"] = text.map(JSON.string) ?? .null
            let response = tracker.makeEvent(
                ImplicitTrigger.surveyResponse.rawValue,
                parameters,
                custom: custom,
                subject: EventSubject(paywallInfo: current.info)
            )
            let replaces = await implicitTriggerReplaces(current, with: response, trigger: .surveyResponse)
            record(response)
            return !replaces
        }
    }

    private func noteSurvey(_ presentation: SurveyPresentation, on current: PresentedPaywall) {
        paywalls.changeOpen(current.id) { $0.survey = presentation }
    }

    /// SuperwallKit's `Survey.shouldAssignHoldout`, inverted: true with the given probability.
    private func drawsSurvey(_ probability: Double) -> Bool {
        guard probability > 0 else { return false }
        let resolution = 1_000_000
        return Double(random.int(in: 0..<resolution)) / Double(resolution) < probability
    }

    /// SuperwallKit shows the options in a new random order each time.
    private func shuffled<Element>(_ elements: [Element]) -> [Element] {
        var elements = elements
        guard elements.count > 1 else { return elements }
        for index in stride(from: elements.count - 1, to: 0, by: -1) {
            elements.swapAt(index, random.int(in: 0..<(index + 1)))
        }
        return elements
    }
}
