import Foundation
import Testing
@testable import FxreplayBatch
@testable import ReplayKitless

@Suite struct ShardTests {
    @Test func fnv1aMatchesPublishedVectors() {
        // Test vectors from the FNV reference (Fowler, Noll, Vo).
        #expect(fnv1a64("".utf8) == 0xcbf2_9ce4_8422_2325)
        #expect(fnv1a64("a".utf8) == 0xaf63_dc4c_8601_ec8c)
        #expect(fnv1a64("foobar".utf8) == 0x8594_4171_f739_67e8)
    }

    @Test func threeShardsAreDisjointAndCoverEverything() throws {
        let paths = (0..<100).map { String(format: "recordings/2024-05-%02d/call%03d.mp4", $0 % 28 + 1, $0) }
        let shards = try (0..<3).map { try Shard(index: $0, count: 3) }
        let picked = shards.map { shard in Set(paths.filter(shard.contains)) }
        #expect(picked[0].isDisjoint(with: picked[1]) && picked[0].isDisjoint(with: picked[2]) && picked[1].isDisjoint(with: picked[2]))
        #expect(picked[0].union(picked[1]).union(picked[2]) == Set(paths))
        // Not a proof of balance, but a badly mixed hash would leave a shard nearly empty.
        #expect(picked.allSatisfy { $0.count >= 20 }, "\(picked.map(\.count))")
        // The choice is the hash of the path modulo the count, recomputed here by hand.
        for path in paths.prefix(10) {
            var hash: UInt64 = 14_695_981_039_346_656_037
            for byte in path.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
            #expect(Shard.index(of: path, count: 3) == Int(hash % 3))
        }
    }

    @Test func equivalentSpellingsOfAPathLandInOneShard() {
        for count in [2, 3, 7] {
            #expect(Shard.index(of: "./in//a.mp4", count: count) == Shard.index(of: "in/a.mp4", count: count))
        }
    }

    @Test func parsingAndRanges() throws {
        #expect(try Shard(parsing: "1/3") == Shard(index: 1, count: 3))
        for bad in ["3/3", "-1/3", "1/0", "a/b", "1", "1/3/4"] {
            #expect(throws: ReplayError.self) { try Shard(parsing: bad) }
        }
    }

    @Test func kubernetesIndexedJob() throws {
        let env = ["JOB_COMPLETION_INDEX": "2", "FXREPLAY_SHARD_COUNT": "5"]
        #expect(try Shard.fromEnvironment(env, count: nil)?.0 == Shard(index: 2, count: 5))
        #expect(try Shard.fromEnvironment(env, count: 3)?.0 == Shard(index: 2, count: 3))
        #expect(try Shard.fromEnvironment(env, count: 3)?.1 == .kubernetes)
        #expect(throws: ReplayError.self) { try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "2"], count: nil) }
        #expect(throws: ReplayError.self) { try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "5"], count: 5) }
        #expect(try Shard.fromEnvironment(["HOME": "/root"], count: nil) == nil)
    }

    @Test func slurmArrayIncludingANonZeroMinimumAndSteps() throws {
        // --array=0-3
        #expect(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0",
                                           "SLURM_ARRAY_TASK_COUNT": "4"], count: nil)?.0 == Shard(index: 3, count: 4))
        // --array=10-13: task 12 is the third of four.
        let fromTen = ["SLURM_ARRAY_TASK_ID": "12", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_MAX": "13", "SLURM_ARRAY_TASK_COUNT": "4"]
        #expect(try Shard.fromEnvironment(fromTen, count: nil)?.0 == Shard(index: 2, count: 4))
        #expect(try Shard.fromEnvironment(fromTen, count: nil)?.1 == .slurm)
        // --array=1-7:2 → tasks 1, 3, 5, 7; task 5 is index 2.
        #expect(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_STEP": "2",
                                           "SLURM_ARRAY_TASK_COUNT": "4"], count: nil)?.0 == Shard(index: 2, count: 4))
        // A task off the range, or beyond the count, is refused rather than silently doing another's share.
        #expect(throws: ReplayError.self) {
            try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_STEP": "2",
                                       "SLURM_ARRAY_TASK_COUNT": "4"], count: nil)
        }
        #expect(throws: ReplayError.self) {
            try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "14", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_COUNT": "4"], count: nil)
        }
        #expect(throws: ReplayError.self) { try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "1"], count: nil) }
    }

    @Test func kubernetesWinsOverSlurm() throws {
        let env = ["JOB_COMPLETION_INDEX": "1", "SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "2"]
        #expect(try Shard.fromEnvironment(env, count: 2)?.1 == .kubernetes)
    }
}
