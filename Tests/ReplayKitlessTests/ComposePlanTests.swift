import Testing
@testable import ReplayKitless

/// The composition's plan, computed from a call described in memory: no file is opened, no
/// FFmpeg call made.
@Suite struct ComposePlanTests {
    /// A stream `id` with video, active over each of `spans` (call seconds), optionally a screen share.
    private func stream(_ id: String, _ spans: [(Double, Double)], order: Int, screen: Bool = false,
                        size: PictureSize = PictureSize(width: 640, height: 360)) -> CallStream {
        CallStream(id: id, name: "Name \(id)", videoType: screen ? "screen" : "camera", order: order, tracks: spans.map { span in
            CallTrack(path: FilePath("/nonexistent/\(id)-\(span.0).webm"), name: "\(id)-\(span.0).webm", start: span.0, stop: span.1,
                      mediaStart: 0, mediaEnd: span.1 - span.0, hasVideo: true, hasAudio: true, shownSize: size)
        })
    }

    private func options(_ streams: [CallStream], layout: CallLayout = .grid, fps: Int = 10,
                         size: PictureSize = PictureSize(width: 640, height: 360)) -> ComposeOptions {
        var options = ComposeOptions(call: Call(source: "/nonexistent/call.json", manifest: "/nonexistent/call.json", epoch: nil, streams: streams),
                                     output: "/nonexistent/out.mp4")
        options.layout = layout
        options.fps = fps
        options.size = size
        return options
    }

    @Test func joinsAndLeavesStartNewScenesOnTheFrameTheyHappen() throws {
        // A throughout, B over 2–6 s, C over 4–8 s, at 10 fps: 100 frames.
        let plan = try ComposePlan(options: options([stream("a", [(0, 10)], order: 0), stream("b", [(2, 6)], order: 1),
                                                    stream("c", [(4, 8)], order: 2)])) { nil }
        #expect(plan.size == PictureSize(width: 640, height: 360))
        #expect(plan.frameCount == 100)
        #expect(plan.scenes.map(\.firstFrame) == [0, 20, 40, 60, 80])
        #expect(plan.scenes.map(\.shown) == [[0], [0, 1], [0, 1, 2], [0, 2], [0]])
        #expect(plan.layoutChanges == 4)
        #expect(plan.warnings.isEmpty)
        // Two side by side on 640×360: §9's grid has 2 columns and 1 row, 320 pixels each.
        #expect(plan.scenes[1].tiles.map(\.rect) == [PixelRect(x: 0, y: 0, width: 320, height: 360),
                                                      PixelRect(x: 320, y: 0, width: 320, height: 360)])
        #expect(plan.scenes[0].tiles.map(\.rect) == [PixelRect(x: 0, y: 0, width: 640, height: 360)])
        #expect(plan.sceneIndex(ofFrame: 0) == 0)
        #expect(plan.sceneIndex(ofFrame: 39) == 1)
        #expect(plan.sceneIndex(ofFrame: 40) == 2)
        #expect(plan.sceneIndex(ofFrame: 99) == 4)
    }

    @Test func anOddSizeIsRoundedDownWithAWarning() throws {
        let plan = try ComposePlan(options: options([stream("a", [(0, 1)], order: 0)], size: PictureSize(width: 641, height: 361))) { nil }
        #expect(plan.size == PictureSize(width: 640, height: 360))
        #expect(plan.warnings == ["641x361 is rounded to 640x360: 4:2:0 needs an even width and height"])
    }

    /// Every frame of the plan shows what evaluating that frame alone gives, on calls whose
    /// tracks start and stop between frames, at rates whose frame times are not exact in binary.
    @Test(arguments: [7, 24, 30, 60])
    func everyFrameShowsWhatThatFrameAloneWouldShow(fps: Int) throws {
        var generator = SplitMix(seed: UInt64(fps))
        var streams: [CallStream] = []
        for index in 0..<5 {
            var spans: [(Double, Double)] = []
            var t = Double(generator.next() % 300) / 97
            for _ in 0..<3 {
                let length = 0.05 + Double(generator.next() % 400) / 131
                spans.append((t, t + length))
                t += length + Double(generator.next() % 200) / 113
            }
            streams.append(stream("s\(index)", spans, order: index, screen: index == 3))
        }
        for layout in [CallLayout.grid, .focus("s1"), .pip("s2")] {
            let composition = options(streams, layout: layout, fps: fps)
            let plan = try ComposePlan(options: composition) { nil }
            let participants = CallParticipant.withVideo(in: composition.call)
            let screenFirst = participants.firstIndex { $0.keys.contains("s1") }.map { FocusTimeline(fixed: $0, screensFirst: true) }
            for k in 0..<plan.frameCount {
                let t = composition.callTime(ofFrame: k)
                let shown = participants.indices.filter { participants[$0].isShown(at: t) }
                var arrangement = layout
                if case .focus = layout, let screenFirst, let focus = screenFirst.focus(at: t, shown: shown, participants: participants) {
                    arrangement = .focus(participants[focus].streams[0].id)
                }
                let scene = plan.scenes[plan.sceneIndex(ofFrame: k)]
                #expect(scene.shown == shown, "frame \(k) at \(fps) fps, \(layout)")
                #expect(scene.arrangement == arrangement, "frame \(k) at \(fps) fps, \(layout)")
            }
        }
    }

    @Test func theSpeakerRuleMovesTheFocusAtTheWindowItSays() throws {
        // "b" is the loudest from 0.5 s for 1.5 s: after 10 windows (1.0 s) of it, at 1.5 s, the
        // focus moves to b; at 25 fps frame 37 is at 1.48 s, frame 38 at 1.52 s.
        let loudest: [String?] = Array(repeating: nil, count: 5) + Array(repeating: "b", count: 15) + Array(repeating: nil, count: 20)
        let composition = options([stream("a", [(0, 4)], order: 0), stream("b", [(0, 4)], order: 1)], layout: .speaker, fps: 25)
        let plan = try ComposePlan(options: composition) { SpeakerActivity(firstWindow: 0, loudest: loudest) }
        #expect(plan.scenes.map(\.firstFrame) == [0, 38])
        #expect(plan.scenes.map(\.arrangement) == [.focus("a"), .focus("b")])
        #expect(plan.layoutChanges == 0)
    }

    @Test func aScreenShareTakesTheFocusWhileItIsActive() throws {
        let composition = options([stream("a", [(0, 6)], order: 0), stream("b", [(0, 6)], order: 1),
                                   stream("share", [(2, 4)], order: 2, screen: true)], layout: .focus("a"))
        let plan = try ComposePlan(options: composition) { nil }
        #expect(plan.scenes.map(\.firstFrame) == [0, 20, 40])
        #expect(plan.scenes.map(\.arrangement) == [.focus("a"), .focus("share"), .focus("a")])
    }

    @Test func badOptionsAreRefusedBeforeAnythingIsMeasured() throws {
        var measured = false
        let streams = [stream("a", [(0, 4)], order: 0)]
        var tooLong = options(streams)
        tooLong.to = 1e17
        for (composition, flag) in [(options(streams, fps: 0), "ComposeOptions.fps"), (tooLong, "ComposeOptions.to")] {
            let error = #expect(throws: ReplayError.self) {
                try ComposePlan(options: composition) { measured = true; return nil }
            }
            #expect(error?.kind == .usage)
            #expect(error?.message.contains(flag) == true, "\(error?.message ?? "")")
        }
        #expect(!measured)
        let unknown = #expect(throws: ReplayError.self) { try ComposePlan(options: options(streams, layout: .focus("nobody"))) { nil } }
        #expect(unknown?.message(naming: { $0 == "CallLayout.focus" ? "--focus" : nil }).hasPrefix("--focus nobody: no participant") == true)
    }
}
