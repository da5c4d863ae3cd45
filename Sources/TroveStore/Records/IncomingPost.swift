/// A post ready to store: its input, where its photo is, and what the photo says.
package struct IncomingPost: Sendable {
    package var input: PostInput
    package var photoPath: String?
    package var facts: PhotoFacts?
    package var problem: String?
    package var contentHash: String
    package init(
        input: PostInput, photoPath: String? = nil, facts: PhotoFacts? = nil,
        problem: String? = nil, contentHash: String
    ) {
        self.input = input
        self.photoPath = photoPath
        self.facts = facts
        self.problem = problem
        self.contentHash = contentHash
    }
}
