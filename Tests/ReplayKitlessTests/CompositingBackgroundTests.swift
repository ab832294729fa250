import Testing
@testable import ReplayKitless

@Suite struct CompositingPlacementTests {
    static func place(_ fit: BackgroundFit, picture: (Int, Int), frame: (Int, Int)) -> BackgroundPlacement {
        BackgroundPlacement(fit: fit, pictureWidth: picture.0, pictureHeight: picture.1,
                            frameWidth: frame.0, frameHeight: frame.1)
    }

    @Test func widePictureOnAFourByThreeFrame() {
        // 1920×1080 on 640×480. Cover scales by max(640/1920, 480/1080) = 4/9: the frame's 640 px
        // take 640·9/4 = 1440 picture px, centred at (1920 − 1440)/2 = 240.
        let cover = Self.place(.cover, picture: (1920, 1080), frame: (640, 480))
        #expect(cover.source == PixelRect(x: 240, y: 0, width: 1440, height: 1080))
        #expect(cover.destination == PixelRect(x: 0, y: 0, width: 640, height: 480))
        // Contain scales by 1/3: 640×360, with (480 − 360)/2 = 60 rows of bar above and below.
        let contain = Self.place(.contain, picture: (1920, 1080), frame: (640, 480))
        #expect(contain.source == PixelRect(x: 0, y: 0, width: 1920, height: 1080))
        #expect(contain.destination == PixelRect(x: 0, y: 60, width: 640, height: 360))
        let stretch = Self.place(.stretch, picture: (1920, 1080), frame: (640, 480))
        #expect(stretch.source == PixelRect(x: 0, y: 0, width: 1920, height: 1080))
        #expect(stretch.destination == PixelRect(x: 0, y: 0, width: 640, height: 480))
    }

    @Test func tallPictureOnAWideFrame() {
        // 1080×1920 on 640×480. Cover: scale 640/1080, so the frame's 480 rows take 480·1080/640 = 810
        // picture rows, from (1920 − 810)/2 = 555. Contain: scale 480/1920 = 1/4, 270 wide at x 185.
        let cover = Self.place(.cover, picture: (1080, 1920), frame: (640, 480))
        #expect(cover.source == PixelRect(x: 0, y: 555, width: 1080, height: 810))
        let contain = Self.place(.contain, picture: (1080, 1920), frame: (640, 480))
        #expect(contain.destination == PixelRect(x: 185, y: 0, width: 270, height: 480))
    }

    @Test func sameAspectRatioUsesEverything() {
        for fit in BackgroundFit.allCases {
            let placement = Self.place(fit, picture: (1280, 960), frame: (640, 480))
            #expect(placement.source == PixelRect(x: 0, y: 0, width: 1280, height: 960))
            #expect(placement.destination == PixelRect(x: 0, y: 0, width: 640, height: 480))
        }
    }

    @Test func roundingAndOddLeftovers() {
        // 101×50 on a square 100×100 frame: cover keeps 50×50 of the picture, leftover 51 → x 25.
        #expect(Self.place(.cover, picture: (101, 50), frame: (100, 100)).source
                == PixelRect(x: 25, y: 0, width: 50, height: 50))
        // Contain: 100 × 50·100/101 = 49.505 → 50 rows, (100 − 50)/2 = 25.
        #expect(Self.place(.contain, picture: (101, 50), frame: (100, 100)).destination
                == PixelRect(x: 0, y: 25, width: 100, height: 50))
        // A sliver never vanishes: 1000×1 contained in 10×10 is 10×1, not 10×0.
        #expect(Self.place(.contain, picture: (1000, 1), frame: (10, 10)).destination
                == PixelRect(x: 0, y: 4, width: 10, height: 1))
    }

    @Test func fitParsing() throws {
        #expect(try BackgroundFit(parsing: "cover") == .cover)
        #expect(try BackgroundFit(parsing: "contain") == .contain)
        #expect(try BackgroundFit(parsing: "stretch") == .stretch)
        for bad in ["", "Cover", "fill"] {
            #expect(throws: ReplayError.usage("`BackgroundSettings.fit`: '\(bad)' is not one of cover, contain, stretch", options: ["BackgroundSettings.fit"])) {
                try BackgroundFit(parsing: bad)
            }
        }
    }
}

@Suite struct CompositingSpecTests {
    @Test func parsesEveryForm() throws {
        #expect(try BackgroundSpec(parsing: "image:beach.jpg") == .image(path: "beach.jpg"))
        #expect(try BackgroundSpec(parsing: "image:/tmp/a:b.png") == .image(path: "/tmp/a:b.png"))
        #expect(try BackgroundSpec(parsing: "video:loop.mp4") == .video(path: "loop.mp4"))
        #expect(try BackgroundSpec(parsing: "blur:15") == .blur(sigma: 15))
        #expect(try BackgroundSpec(parsing: "blur:2.5") == .blur(sigma: 2.5))
        #expect(try BackgroundSpec(parsing: "color:#00FF7f") == .color(RGBAColor(red: 0, green: 255, blue: 127)))
        #expect(try BackgroundSpec(parsing: "transparent") == .transparent)
    }

    @Test(arguments: ["", "beach.jpg", "image:", "video:", "blur:", "blur:0", "blur:-3", "blur:abc",
                      "blur:nan", "blur:inf", "blur:1001", "color:", "color:00FF00", "color:#00FF0", "color:#00FF00FF",
                      "color:#GG0000", "gradient:x", "transparent:yes", "Transparent", "IMAGE:a.png"])
    func rejectsMalformedFormsAsUsageErrorsNamingTheOption(_ text: String) {
        do {
            let spec = try BackgroundSpec(parsing: text)
            Issue.record("'\(text)' parsed as \(spec)")
        } catch {
            #expect(error.kind == .usage)
            #expect(error.message.hasPrefix("`BackgroundSettings.background`: '\(text)'"))
        }
    }
}
