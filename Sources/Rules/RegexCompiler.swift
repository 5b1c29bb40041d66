struct RegexCompiler {
    var instructions: [Instruction] = []
    /// Nodes emitted so far, counted apart from the instructions: a repetition of what emits
    /// nothing (`(a{0}){990}{990}{999}`) emits no instruction in a billion steps.
    private var nodesEmitted = 0

    mutating func append(_ instruction: Instruction) {
        instructions.append(instruction)
    }

    private mutating func checkSize() throws(EvaluationError) {
        guard instructions.count <= RegularExpression.maximumInstructions else {
            throw RegularExpression.failure(
                "pattern compiles to more than \(RegularExpression.maximumInstructions) instructions"
            )
        }
    }

    mutating func emit(_ node: RegexNode) throws(EvaluationError) {
        try checkSize()
        nodesEmitted += 1
        guard nodesEmitted <= RegularExpression.maximumCompiledNodes else {
            throw RegularExpression.failure(
                "pattern repeats its parts more than \(RegularExpression.maximumCompiledNodes) times in all"
            )
        }
        switch node {
        case .empty:
            break
        case .character(let matcher):
            append(.character(matcher))
        case .assert(let assertion):
            append(.assert(assertion))
        case .concatenation(let items):
            for item in items { try emit(item) }
        case .alternation(let branches):
            var jumpsToEnd: [Int] = []
            for (index, branch) in branches.enumerated() {
                if index < branches.count - 1 {
                    let split = instructions.count
                    append(.split(split + 1, -1))
                    try emit(branch)
                    jumpsToEnd.append(instructions.count)
                    append(.jump(-1))
                    instructions[split] = .split(split + 1, instructions.count)
                } else {
                    try emit(branch)
                }
            }
            for jump in jumpsToEnd { instructions[jump] = .jump(instructions.count) }
        case .repetition(let inner, let minimum, let maximum):
            for _ in 0..<minimum { try emit(inner) }
            if let maximum {
                var splits: [Int] = []
                for _ in minimum..<maximum {
                    splits.append(instructions.count)
                    append(.split(instructions.count + 1, -1))
                    try emit(inner)
                }
                for split in splits { instructions[split] = .split(split + 1, instructions.count) }
            } else {
                let loop = instructions.count
                append(.split(loop + 1, -1))
                try emit(inner)
                append(.jump(loop))
                instructions[loop] = .split(loop + 1, instructions.count)
            }
        }
        try checkSize()
    }
}
