import Foundation
import Testing
@testable import FxreplayBatch
@testable import ReplayKitless

@Suite struct BatchJobSpecTests {
    @Test func yamlBecomesLongOptionsInKeyOrder() throws {
        let job = try JobSpec(parsing: """
            preset: veryslow
            crf: 20
            mirror: true
            keep-rotation: false
            size: 1280x720
            effect: [blur, "sharpen"]
            offset: -3
            batch:
              container: .mkv
              poses: "{name}.pose.csv"
            """, path: "job.yaml")
        // Sorted by key; false flags leave nothing; lists repeat; values use --key=value.
        #expect(job.arguments == ["--crf=20", "--effect=blur", "--effect=sharpen", "--mirror",
                                  "--offset=-3", "--preset=veryslow", "--size=1280x720"])
        #expect(job.container == "mkv")
        #expect(job.discovery.patterns["poses"] == ["{name}.pose.csv"])
        #expect(job.discovery.patterns["mask"] == InputDiscovery.defaultPatterns["mask"])
        #expect(job.options.first { $0.key == "mirror" }?.line == 3)
    }

    @Test func jsonGivesTheSameArgumentsAsYAML() throws {
        let yaml = try JobSpec(parsing: "crf: 20\nmirror: true\ndeterministic: false\nsize: 640x360\nbitrate: 2.5\n", path: "j.yaml")
        let json = try JobSpec(parsing: #"{"size":"640x360","crf":20,"mirror":true,"deterministic":false,"bitrate":2.5}"#,
                               path: "j.json", json: true)
        #expect(json.arguments == yaml.arguments)
        #expect(json.arguments == ["--bitrate=2.5", "--crf=20", "--mirror", "--size=640x360"])
        #expect(json.container == "mp4")
    }

    @Test func quotedTrueIsTextNotAFlag() throws {
        let job = try JobSpec(parsing: "mirror: \"true\"\n", path: "j.yaml")
        #expect(job.arguments == ["--mirror=true"])
    }

    @Test func malformedJobsNameFileLineAndKey() {
        func message(_ text: String, json: Bool = false) -> String {
            do {
                _ = try JobSpec(parsing: text, path: "jobs/x.yaml", json: json)
                return "no error"
            } catch {
                #expect(error.exitCode == 3)
                return error.message
            }
        }
        #expect(message("crf: 20\nsize:\n") == "jobs/x.yaml:2 (size): has no value (write true, a value or a list)")
        #expect(message("--crf: 20\n").hasPrefix("jobs/x.yaml:1 (--crf): write option names without leading dashes"))
        #expect(message("output: a.mp4\n").hasPrefix("jobs/x.yaml:1 (output): the output is given on the command line"))
        #expect(message("job: other.yaml\n").hasPrefix("jobs/x.yaml:1 (job):"))
        #expect(message("crf:\n  a: 1\n").hasPrefix("jobs/x.yaml:1 (crf): takes a value"))
        #expect(message("- crf\n- 20\n").hasPrefix("jobs/x.yaml: a job spec must be a mapping"))
        #expect(message("crf: 20\ncrf: 21\n").contains("duplicated key crf"))
        #expect(message("crf: [20\n").hasPrefix("jobs/x.yaml:2: not valid YAML"))
        #expect(message("batch:\n  poses: poses.csv\n").hasPrefix("jobs/x.yaml:2 (batch.poses): 'poses.csv' has no {name}"))
        #expect(message("batch:\n  container: mp 4\n").hasPrefix("jobs/x.yaml:2 (batch.container)"))
        #expect(message(#"{"crf": 20"#, json: true).hasPrefix("jobs/x.yaml:1: not valid JSON"))
    }

    @Test func missingJobFileIsBadInput() {
        #expect(throws: ReplayError.badInput(file: "/nonexistent/job.yaml", "cannot read the job spec (no such file)")) {
            try JobSpec(contentsOf: "/nonexistent/job.yaml")
        }
    }

    @Test func nullPatternTurnsDiscoveryOff() throws {
        let job = try JobSpec(parsing: "batch:\n  mask: null\n  annotations: []\n", path: "j.yaml")
        #expect(job.discovery.patterns["mask"] == [])
        #expect(job.discovery.patterns["annotations"] == [])
        #expect(job.discovery.patterns["poses"] == InputDiscovery.defaultPatterns["poses"])
    }
}

@Suite struct BatchManifestTests {
    @Test func csvWithQuotesFlagsAndEmptyCells() throws {
        let rows = try Manifest.parseCSV("""
            input, output ,size,mirror,preset\r
            calls/a.mp4,,640x360,true,\r
            "calls/b, the second.mp4","b out.mp4",,false,"very""slow"
            \r
            https://host/c.mp4?x=1,c.mkv,,,fast
            """, file: "m.csv")
        #expect(rows.count == 3)
        #expect(rows[0].input == "calls/a.mp4" && rows[0].output == nil && rows[0].line == 2)
        #expect(rows[0].options.flatMap(\.arguments) == ["--mirror", "--size=640x360"])
        #expect(rows[1].input == "calls/b, the second.mp4" && rows[1].output == "b out.mp4")
        #expect(rows[1].options.flatMap(\.arguments) == ["--preset=very\"slow"])
        #expect(rows[2].input == "https://host/c.mp4?x=1" && rows[2].line == 5)
    }

    @Test func csvErrorsNameTheLine() {
        func message(_ text: String) -> String {
            do { _ = try Manifest.parseCSV(text, file: "m.csv"); return "no error" } catch { return error.message }
        }
        #expect(message("input,crf\na.mp4,20\nb.mp4\n") == "m.csv:3: 1 cells, but the header has 2 columns")
        #expect(message("file,crf\na.mp4,20\n") == "m.csv:1: the header row has no 'input' column")
        #expect(message("input,crf,crf\na,1,2\n") == "m.csv:1 (crf): column named twice")
        #expect(message("input,crf\n,20\n") == "m.csv:2 (input): must name a recording")
        #expect(message("input,--crf\na,20\n").hasPrefix("m.csv:2 (--crf): write option names without leading dashes"))
        #expect(message("input\n\"a.mp4\n") == "m.csv:2: a quoted cell is not closed")
    }

    @Test func jsonLinesAreTypedAndNullIsUnset() throws {
        let rows = try Manifest.parseJSONLines("""
            {"input": "a.mp4", "crf": 18, "mirror": true}

            {"input": "b.mp4", "output": "x/b.webm", "crf": null, "effect": ["a", "b"]}
            """, file: "m.jsonl")
        #expect(rows.map(\.line) == [1, 3])
        #expect(rows[0].options.flatMap(\.arguments) == ["--crf=18", "--mirror"])
        #expect(rows[1].output == "x/b.webm")
        #expect(rows[1].options.flatMap(\.arguments) == ["--effect=a", "--effect=b"])
        #expect(throws: ReplayError.self) { try Manifest.parseJSONLines("{\"input\": \"a\"}\n[1]\n", file: "m.jsonl") }
        do {
            _ = try Manifest.parseJSONLines("{\"input\": \"a\"}\n{\"crf\": 1}\n", file: "m.jsonl")
        } catch {
            #expect(error.message == "m.jsonl:2 (input): missing")
        }
    }
}

@Suite struct BatchDiscoveryTests {
    /// A scratch directory holding empty files with the given names.
    func directory(with names: [String]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("batch-discovery-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in names { _ = FileManager.default.createFile(atPath: "\(dir)/\(name)", contents: Data()) }
        return dir
    }

    @Test func findsSidecarsByNameInPatternOrder() throws {
        let dir = try directory(with: ["call1.mp4", "call1.poses.csv", "call1.poses.jsonl", "call1.mask.webm",
                                       "call1.annotations.json", "call2.mov", "call2.poses.pose32", "call3.mp4"])
        let discovery = InputDiscovery()
        // .jsonl comes before .csv in the patterns, so it wins although both exist.
        #expect(discovery.inputs(for: "\(dir)/call1.mp4").map(\.argument) == [
            "--annotations=\(dir)/call1.annotations.json", "--mask=\(dir)/call1.mask.webm", "--poses=\(dir)/call1.poses.jsonl",
        ])
        #expect(discovery.inputs(for: "\(dir)/call2.mov").map(\.argument) == ["--poses=\(dir)/call2.poses.pose32"])
        #expect(discovery.inputs(for: "\(dir)/call3.mp4").isEmpty)
        #expect(discovery.inputs(for: "https://example.com/call1.mp4", exists: { _ in true }).isEmpty)
    }

    @Test func patternsAreRelativeToTheRecordingUnlessAbsolute() {
        #expect(InputDiscovery.expand("{name}.poses.csv", for: "a/b/call.v2.mp4") == "a/b/call.v2.poses.csv")
        #expect(InputDiscovery.expand("../poses/{name}.csv", for: "./a/call.mp4") == "a/../poses/call.csv")
        #expect(InputDiscovery.expand("/srv/poses/{name}.csv", for: "a/call.mp4") == "/srv/poses/call.csv")
        #expect(InputDiscovery.expand("{name}.csv", for: "call.mp4") == "call.csv")
    }

    @Test func jobPatternsReplaceTheDefaults() throws {
        let dir = try directory(with: ["x.mp4", "x.poses.jsonl", "x.track.csv"])
        let job = try JobSpec(parsing: "batch:\n  poses: null\n  track: \"{name}.track.csv\"\n", path: "j.yaml")
        #expect(job.discovery.inputs(for: "\(dir)/x.mp4").map(\.argument) == ["--track=\(dir)/x.track.csv"])
    }

    @Test func namesAndNormalisation() {
        #expect(PathNames.name(of: "a/b/call.final.mp4") == "call.final")
        #expect(PathNames.name(of: "https://h/p/call.mp4?sig=a.b") == "call")
        #expect(PathNames.name(of: ".hidden") == ".hidden")
        #expect(PathNames.normalize("./a//b/./c.mp4") == "a/b/c.mp4")
        #expect(PathNames.normalize("/x/./y/") == "/x/y")
        #expect(PathNames.normalize("-odd.mp4") == "./-odd.mp4")
        #expect(PathNames.normalize("s3://b//k.mp4") == "s3://b//k.mp4")
        #expect(PathNames.resolve("in/a.mp4", against: "/data") == "/data/in/a.mp4")
        #expect(PathNames.resolve("/abs/a.mp4", against: "/data") == "/abs/a.mp4")
        #expect(PathNames.resolve("a.mp4", against: ".") == "a.mp4")
    }
}

@Suite struct BatchPlannerTests {
    @Test func globsSkipSidecarsAndOrderArgumentsJobThenFoundThenRow() throws {
        let dir = try BatchDiscoveryTests().directory(with: ["a.mp4", "a.mask.mp4", "a.poses.jsonl", "b.mp4", "notes.txt"])
        let job = try JobSpec(parsing: "crf: 20\nprogress: plain\nreport: r.json\nbatch:\n  container: mkv\n", path: "j.yaml")
        let planner = BatchPlanner(outputDirectory: "\(dir)/out/", job: job)
        let recordings = try planner.recordings(matching: ["\(dir)/*.mp4"])
        // a.mask.mp4 matches the glob but is a's mask, not a recording.
        #expect(recordings.map(\.name) == ["a", "b"])
        #expect(recordings[0].output == "\(dir)/out/a.mkv")
        // Batch-controlled options (progress, report) are dropped from the job.
        #expect(recordings[0].arguments == ["\(dir)/a.mp4", "-o", "\(dir)/out/a.mkv", "--crf=20",
                                            "--mask=\(dir)/a.mask.mp4", "--poses=\(dir)/a.poses.jsonl"])
        #expect(recordings[0].files == ["\(dir)/a.mp4", "\(dir)/a.mask.mp4", "\(dir)/a.poses.jsonl"])
        #expect(recordings[1].arguments == ["\(dir)/b.mp4", "-o", "\(dir)/out/b.mkv", "--crf=20"])
    }

    /// The meshes a scene names are files the render reads: the fingerprint covers them, so an
    /// edited mesh makes the output stale (only the scene itself was covered).
    @Test func aScenesMeshesAreAmongTheFilesOfARecording() throws {
        let dir = try BatchDiscoveryTests().directory(with: ["a.mp4", "b.mp4"])
        let mesh = "\(dir)/valve.obj", scene = "\(dir)/scene.json"
        try "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".write(toFile: mesh, atomically: true, encoding: .utf8)
        try #"{"version": 1, "annotations": [{"id": "v", "anchor": {"world": [0, 0, -1]}, "shape": "mesh", "mesh": "valve.obj"}]}"#
            .write(toFile: scene, atomically: true, encoding: .utf8)
        let job = try JobSpec(parsing: "annotations: \(scene)\nposes-from-sei: true\n", path: "j.yaml")
        let recordings = try BatchPlanner(outputDirectory: "\(dir)/out", job: job).recordings(matching: ["\(dir)/*.mp4"])
        #expect(recordings.map(\.files) == [["\(dir)/a.mp4", scene, mesh], ["\(dir)/b.mp4", scene, mesh]])
    }

    /// A background picture and every image of a mask sequence are files the render reads: a
    /// changed one makes the outputs stale (they were not covered). A glob does not take the
    /// background picture for a recording.
    @Test func backgroundPicturesAndMaskImagesAreAmongTheFiles() throws {
        let dir = try BatchDiscoveryTests().directory(with: ["a.mp4", "bg.png"])
        try FileManager.default.createDirectory(atPath: "\(dir)/m", withIntermediateDirectories: true)
        // mask_0002.png is not what %03d gives for 2, and other.png no number at all: render never reads them.
        for name in ["mask_001.png", "mask_000.png", "mask_010.png", "mask_0002.png", "other.png"] {
            _ = FileManager.default.createFile(atPath: "\(dir)/m/\(name)", contents: Data())
        }
        let job = try JobSpec(parsing: "background: image:\(dir)/bg.png\nmask: \(dir)/m/mask_%03d.png\n", path: "j.yaml")
        let recordings = try BatchPlanner(outputDirectory: "\(dir)/out", job: job).recordings(matching: ["\(dir)/*"])
        #expect(recordings.map(\.name) == ["a"])
        #expect(recordings.first?.files == ["\(dir)/a.mp4", "\(dir)/bg.png", "\(dir)/m/mask_000.png", "\(dir)/m/mask_001.png",
                                             "\(dir)/m/mask_010.png"])
    }

    /// A row's relative file paths resolve against the manifest's directory (outputs against
    /// `--out`); keywords, numbers, absolute paths and URLs stay as written.
    @Test func aRowsPathsResolveAgainstTheManifestAndNothingElseDoes() throws {
        let rows = try Manifest.parseJSONLines("""
            {"input": "a.mp4", "poses": "p/a.csv", "mask": "alpha", "background": "video:../bg.mkv", "font": "/f.ttf", "crf": 20}
            {"input": "b.mp4", "mask": "m/b_%03d.png", "background": "blur:4", "annotations": "https://host/s.json", "preview": "b.png"}
            """, file: "/data/list.jsonl")
        let listed = try BatchPlanner(outputDirectory: "/out", job: nil).recordings(rows: rows, manifest: "/data/list.jsonl")
        #expect(listed.map { Array($0.arguments.dropFirst(3)) } == [
            ["--background=video:/data/../bg.mkv", "--crf=20", "--font=/f.ttf", "--mask=alpha", "--poses=/data/p/a.csv"],
            ["--annotations=https://host/s.json", "--background=blur:4", "--mask=/data/m/b_%03d.png", "--preview=/out/b.png"],
        ])
    }

    /// A job asking for SEI poses does not get a sidecar found by name as well (render refuses
    /// both); a row's choice of pose source replaces the job's.
    @Test func anExplicitPoseSourceKeepsTheOtherOut() throws {
        let dir = try BatchDiscoveryTests().directory(with: ["a.mp4", "a.poses.jsonl", "a.mask.mp4", "b.mp4"])
        let job = try JobSpec(parsing: "poses-from-sei: true\n", path: "j.yaml")
        let planner = BatchPlanner(outputDirectory: "\(dir)/out", job: job)
        let globbed = try planner.recordings(matching: ["\(dir)/a.mp4"])
        #expect(globbed.first?.arguments == ["\(dir)/a.mp4", "-o", "\(dir)/out/a.mp4", "--poses-from-sei", "--mask=\(dir)/a.mask.mp4"])
        #expect(globbed.first?.files == ["\(dir)/a.mp4", "\(dir)/a.mask.mp4"])
        let rows = try Manifest.parseCSV("input,poses\na.mp4,\nb.mp4,a.poses.jsonl\n", file: "\(dir)/m.csv")
        let listed = try planner.recordings(rows: rows, manifest: "\(dir)/m.csv")
        #expect(listed.map(\.arguments) == [
            ["\(dir)/a.mp4", "-o", "\(dir)/out/a.mp4", "--poses-from-sei", "--mask=\(dir)/a.mask.mp4"],
            ["\(dir)/b.mp4", "-o", "\(dir)/out/b.mp4", "--poses=\(dir)/a.poses.jsonl"],
        ])
        // Without a choice in the job, the sidecar found by name is used.
        let plain = try BatchPlanner(outputDirectory: "\(dir)/out", job: nil).recordings(matching: ["\(dir)/a.mp4"])
        #expect(plain.first?.arguments.contains("--poses=\(dir)/a.poses.jsonl") == true)
    }

    /// No output may land on a file some recording reads: another row's input (it was replaced,
    /// and with -j 1 the next row rendered the replacement), or with --out the inputs' folder.
    @Test func anOutputOverAnyRecordingsInputIsRefused() throws {
        let dir = try BatchDiscoveryTests().directory(with: ["a.mp4", "b.mp4"])
        let rows = try Manifest.parseCSV("input,output\na.mp4,b.mp4\nb.mp4,c.mp4\n", file: "\(dir)/m.csv")
        do {
            _ = try BatchPlanner(outputDirectory: dir, job: nil).recordings(rows: rows, manifest: "\(dir)/m.csv")
            Issue.record("expected an error")
        } catch {
            #expect(error.exitCode == 2)
            #expect(error.message.contains("would write over \(dir)/b.mp4, which b.mp4 reads"), "\(error.message)")
        }
        #expect(throws: ReplayError.self) { try BatchPlanner(outputDirectory: dir, job: nil).recordings(matching: ["\(dir)/*.mp4"]) }
    }

    /// A container batch cannot write, or a manifest output that is no video file name, stops the
    /// batch before any render (each render failed on it).
    @Test func containersAreCheckedUpFront() throws {
        for container in ["avi", "txt"] {
            #expect(throws: ReplayError.self) { try JobSpec(parsing: "batch:\n  container: \(container)\n", path: "j.yaml") }
        }
        #expect(try JobSpec(parsing: "batch:\n  container: .MKV\n", path: "j.yaml").container == "MKV")
        for output in ["o.txt", "", "sub/"] {
            let rows = try Manifest.parseJSONLines("{\"input\": \"a.mp4\"}\n{\"input\": \"b.mp4\", \"output\": \"\(output)\"}\n", file: "m.jsonl")
            do {
                _ = try BatchPlanner(outputDirectory: "out", job: nil).recordings(rows: rows, manifest: "m.jsonl")
                Issue.record("expected an error for \(output)")
            } catch {
                #expect(error.exitCode == 3)
                #expect(error.message.hasPrefix("m.jsonl:2 (output):"), "\(error.message)")
            }
        }
    }

    @Test func manifestResolvesInputsAgainstItsDirectoryAndRowsOverrideTheJob() throws {
        let rows = try Manifest.parseCSV("input,output,crf\nin/a.mp4,,\n/abs/b.mp4,sub/bee.mov,30\ns3://bucket/c.mp4,,\n", file: "/data/m.csv")
        let job = try JobSpec(parsing: "crf: 20\n", path: "j.yaml")
        let recordings = try BatchPlanner(outputDirectory: "/data/out", job: job).recordings(rows: rows, manifest: "/data/m.csv")
        #expect(recordings.map(\.listed) == ["in/a.mp4", "/abs/b.mp4", "s3://bucket/c.mp4"])
        #expect(recordings.map(\.input) == ["/data/in/a.mp4", "/abs/b.mp4", "s3://bucket/c.mp4"])
        #expect(recordings.map(\.output) == ["/data/out/a.mp4", "/data/out/sub/bee.mov", "/data/out/c.mp4"])
        #expect(recordings.map(\.name) == ["a", "bee", "c"])
        // The row's --crf comes last, so render keeps it.
        #expect(recordings[1].arguments == ["/abs/b.mp4", "-o", "/data/out/sub/bee.mov", "--crf=20", "--crf=30"])
        #expect(recordings[2].files.isEmpty)
    }

    @Test func twoRecordingsWithOneNameAreRefused() throws {
        let rows = try Manifest.parseCSV("input\nx/call.mp4\ny/call.mov\n", file: "m.csv")
        #expect(throws: ReplayError.self) { try BatchPlanner(outputDirectory: "out", job: nil).recordings(rows: rows, manifest: "m.csv") }
        do { _ = try BatchPlanner(outputDirectory: "out", job: nil).recordings(rows: rows, manifest: "m.csv") } catch {
            #expect(error.exitCode == 2)
            #expect(error.message.hasPrefix("x/call.mp4 and y/call.mov would both be named call"))
        }
    }

    @Test func aGlobMatchingNothingIsBadInput() {
        do {
            _ = try BatchPlanner(outputDirectory: "out", job: nil).recordings(matching: ["/nonexistent-dir-\(UUID())/*.mp4"])
            Issue.record("expected an error")
        } catch {
            #expect(error.exitCode == 3)
        }
    }
}
