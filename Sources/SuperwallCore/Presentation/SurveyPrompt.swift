/// How a paywall's survey went, as `paywall_close` reports it (SuperwallKit's
/// `SurveyPresentationResult`, whose `noShow` is nil here).
enum SurveyPresentation: String, Sendable {
    /// The host was asked to show it.
    case show
    /// The user drew the holdout of the survey's presentation probability.
    case holdout
}

/// SuperwallKit's `SurveyManager.presentSurveyIfAvailable`, run as a paywall starts to close:
/// the first of its surveys whose condition the close meets is asked, unless this user was
/// already assessed for its assignment key. The assessment is stored whatever it draws, so
/// the probability is drawn once per user and key. The options are shown in a new random
/// order each time, as SuperwallKit shows them.
struct SurveyPrompt {
    /// How asking went.
    enum Outcome {
        /// No survey was due, the user was already assessed, or the host cannot show one.
        case notAsked
        /// The user drew the holdout.
        case heldOut
        /// Shown, and not answered within the deadline: the paywall closes as if it had been.
        case unanswered
        case answered(SurveyAnswer, to: Survey)
    }

    let presenter: (any PaywallPresenter)?
    let store: Store?
    let random: any RandomSource
    /// How long the user may take to answer.
    let limit: Duration

    func ask(
        of current: PresentedPaywall,
        closingAs result: PaywallResult,
        for closeReason: PaywallCloseReason
    ) async
        -> Outcome
    {
        guard let survey = current.paywall.surveys.first(where: { $0.isAsked(whenClosing: result, for: closeReason) }),
            let presenter, presenter.canPresent, let store,
            (try? store.value(.surveyAssignmentKey)) != survey.assignmentKey
        else { return .notAsked }
        try? store.set(survey.assignmentKey, for: .surveyAssignmentKey)
        guard draws(survey.presentationProbability) else { return .heldOut }
        var reordered = survey
        reordered.options = shuffled(survey.options)
        let shown = reordered
        let (sessionId, info) = (current.id, current.info)
        let answer: SurveyAnswer?? = await withDeadline(limit, fallback: .some(nil)) {
            do {
                return .some(try await presenter.presentSurvey(shown, sessionId: sessionId, info: info))
            } catch {
                return .none
            }
        }
        switch answer {
        case .none: return .notAsked
        case .some(nil): return .unanswered
        case .some(.some(let answer)): return .answered(answer, to: survey)
        }
    }

    /// SuperwallKit's `Survey.shouldAssignHoldout`, inverted: true with the given probability.
    private func draws(_ probability: Double) -> Bool {
        guard probability > 0 else { return false }
        let resolution = 1_000_000
        return Double(random.int(in: 0..<resolution)) / Double(resolution) < probability
    }

    private func shuffled<Element>(_ elements: [Element]) -> [Element] {
        var elements = elements
        guard elements.count > 1 else { return elements }
        for index in stride(from: elements.count - 1, to: 0, by: -1) {
            elements.swapAt(index, random.int(in: 0..<(index + 1)))
        }
        return elements
    }
}
