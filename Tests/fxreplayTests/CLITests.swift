import Foundation
import Testing

@Suite struct CLITests {
    @Test func unknownOptionIsBadUsage() throws {
        let result = try runFxreplay(["--no-such-option"])
        #expect(result.status == 2)
    }
}
