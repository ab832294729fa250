/// Draws 3D annotations straight into video frames, as seen from each frame's camera pose
/// (formats.md §2: continuous pixel coordinates, coverage sampled around pixel centres).
///
/// Each annotation (its shape and stem) is rasterized on its own, its silhouette anti-aliased with
/// 64 samples per pixel (``MeshRasterizer``), clipped at the pose's near plane before projection, and blended into the frame's Y'CbCr samples with
/// its colour's alpha (converted with the frame's colour space). Annotations are drawn far to near
/// by the depth of their anchors, so a nearer one covers a farther one; labels come last, over
/// every shape: white text on a dark rounded plate, `labelSize` pixels per em, up and to the right
/// of the anchor.
///
/// Lighting: Lambert, `ambient + (1 − ambient)·max(0, n·l)` with `l` = (−0.35, 0.55, 0.75)
/// normalized, in camera space (up, left, towards the viewer). Rings and stems are flat colours.
///
/// Shapes take `size` in metres: sphere diameter, box edge, cone/cylinder base diameter and height,
/// arrow and pin length, ring and star outer diameter (ring and star lie in their XY plane, the
/// star 0.16·size thick). The anchor is the shape's centre, except for the pin, whose tip is the
/// anchor and which stands up along +Y. The arrow points +Y. Rings (and annotations with
/// `billboard`) turn with the camera so their +Z faces the viewer. `spin` turns the shape about
/// world +Y by 2π·spin·time after `orientation`; stems are grey, 0.08·size thick, down to y = 0.
/// OBJ meshes keep their own origin as the anchor and are scaled uniformly so their largest
/// bounding-box dimension is `size`; they are drawn double-sided. Round shapes are tessellated as
/// finely as their size on screen needs: 8 to 32 segments, their outline within ¾ px of a circle
/// (``Mesh/outlineTolerance``).
///
/// The caller decides which annotations are active at a frame's time (`from`/`until`, tap time):
/// `render` draws every annotation it is given. Allocate one renderer per pipeline and output size;
/// it keeps its buffers, meshes and glyphs between frames, and must be used by one thread at a time.
package final class AnnotationRenderer: @unchecked Sendable {
    /// Settings that hold for the whole render.
    package struct Options: Sendable, Equatable {
        /// DejaVu Sans as installed by Debian's fonts-dejavu-core, or the copy the self-contained tarball carries.
        package static let defaultFontPath = BundledBuild.root.map { $0 + "/share/fonts/DejaVuSans.ttf" }
            ?? "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
        /// The TrueType/OpenType font labels are set in.
        package var fontPath: String
        /// Light everywhere, 0…1; the rest comes from the camera-fixed light. 1 draws flat colours.
        package var ambient: Double

        package init(fontPath: String = defaultFontPath, ambient: Double = 0.35) {
            self.fontPath = fontPath
            self.ambient = ambient
        }
    }

    package let options: Options
    /// The colour of stems (a neutral grey).
    static let stemColor = RGBAColor(red: 142, green: 142, blue: 147)

    /// For labels, a window around the one being drawn (shapes are blended tile by tile); made at the first label.
    private var labelLayer: RenderLayer?
    private let rasterizer: MeshRasterizer
    /// A strip facing the camera (``AnnotationPlacement/stem(anchor:size:camera:)``).
    private let stemMesh = Mesh.stem()
    private let stemEdges: MeshEdges
    /// Meshes by shape and number of segments, with their edges' neighbours (made once: a mesh's
    /// topology never changes, only its pose).
    private var meshes: [MeshKey: (mesh: Mesh, edges: MeshEdges?)] = [:]
    private struct MeshKey: Hashable {
        var shape: AnnotationShape
        var segments: Int
    }
    private var glyphs: GlyphCache?
    /// Labels as drawn on an earlier frame, composited from there where they land whole.
    private let labelPictures = LabelPictures()
    /// Annotation indices far to near, rebuilt each frame in place.
    private var order: [(depth: Double, index: Int)] = []

    /// A renderer for frames of any size (buffers follow the frames they are given). With `other`,
    /// it starts with the meshes `other` has made: each process lane has a renderer, and the meshes
    /// (every tessellation of every round shape, with their edges) are read-only once made, so
    /// lanes share one copy of them (Swift arrays share storage until written) instead of one each.
    package init(options: Options = Options(), sharingMeshesWith other: AnnotationRenderer? = nil) {
        self.options = options
        rasterizer = MeshRasterizer(lighting: Lighting(ambient: options.ambient))
        stemEdges = other?.stemEdges ?? MeshEdges(stemMesh)
        meshes = other?.meshes ?? [:]
    }

    /// Loads what `annotations` need (meshes, and the font when any has a label) so that bad files
    /// are reported before the first frame rather than on it. Refuses a scene whose meshes add up to
    /// more than ``InputLimits/sceneTriangles`` triangles (each annotation counts its mesh, built-in
    /// shapes at their finest, and its stem), checked as the meshes load, so memory stays bounded.
    /// `scene` names the scene file in errors.
    package func prepare(_ annotations: [Annotation], scene: String = "annotation scene") throws(ReplayError) {
        var triangles = 0
        for annotation in annotations {
            triangles += try mesh(for: annotation.shape).mesh.triangles.count + (annotation.stem ? stemMesh.triangles.count : 0)
            guard triangles <= InputLimits.sceneTriangles else {
                throw ReplayError.badInput(file: scene, field: "annotation \"\(annotation.id)\"", "the scene's meshes add up to more than "
                                           + "\(InputLimits.sceneTriangles) triangles, the most fxreplay draws (see docs/limits.md)")
            }
            if let label = annotation.label, !label.isEmpty { _ = try glyphCache() }
        }
        // Every tessellation a round shape may take (and its edges), made now rather than on the
        // frame whose size on screen first asks for it.
        for shape in Set(annotations.map(\.shape)) where Self.isRound(shape) {
            for segments in stride(from: 8, through: Mesh.maximumSegments, by: 4) { _ = try mesh(for: shape, segments: segments) }
        }
    }

    /// Whether the shape's mesh follows its size on screen (``Mesh/roundSegments(forRadius:)``).
    private static func isRound(_ shape: AnnotationShape) -> Bool {
        switch shape {
        case .sphere, .cone, .cylinder, .arrow, .pin, .ring: true
        case .box, .star, .mesh: false
        }
    }

    /// The drawing cost one frame may have, in pixel tests: ``InputLimits/frameOverdraw`` frames' worth,
    /// and at least ``InputLimits/frameWorkFloor``.
    static func frameBudget(width: Int, height: Int) -> Double {
        max(InputLimits.frameWorkFloor, InputLimits.frameOverdraw * Double(width) * Double(height))
    }

    /// Draws `annotations` into `image` as `camera` sees them at `time` seconds (which turns
    /// spinning shapes). With `occlusion` (8-bit, frame-sized, 255 = person), coverage is scaled
    /// by (255 − mask)/255, so the person stays in front of the annotations.
    ///
    /// Throws `badInput` when a mesh or the font cannot be loaded, and `processing` when the
    /// occlusion mask does not match the frame size.
    package func render(_ annotations: [PlacedAnnotation], camera: Camera, time: Double,
                       into image: YUVImage, occlusion: Plane? = nil) throws(ReplayError) {
        guard image.width > 0, image.height > 0 else { return }
        if let occlusion, occlusion.width != image.width || occlusion.height != image.height {
            throw ReplayError.processing(
                "occlusion mask is \(occlusion.width)×\(occlusion.height) but the frame is \(image.width)×\(image.height)")
        }
        sortFarToNear(annotations, camera: camera)
        let frame = PixelBounds(minX: 0, minY: 0, maxX: image.width, maxY: image.height)
        // Shapes, then labels, spend one budget: whatever the scene, a frame's drawing time is bounded.
        let budget = Self.frameBudget(width: image.width, height: image.height)
        var spent = 0.0
        func overBudget(_ id: String) -> ReplayError {
            ReplayError.badInput("annotation \"\(id)\": the annotations drawn so far cover the frame more than "
                                 + "\(Int(InputLimits.frameOverdraw)) times over, the most fxreplay draws on one frame "
                                 + "(see docs/limits.md): too many, too large or too detailed on screen at once")
        }
        for (_, index) in order {
            let placed = annotations[index]
            let annotation = placed.annotation
            let shape = AnnotationPlacement.shape(annotation, anchor: placed.world, camera: camera, time: time)
            let material = SurfaceMaterial(annotation.color, colorSpace: image.colorSpace, shaded: annotation.shape != .ring)
            // Round shapes as finely as their size on screen needs (their largest radius, at the anchor's depth).
            let depth = -camera.cameraSpace(placed.world).z
            let segments = Mesh.roundSegments(forRadius: camera.focal.fy * annotation.size * Mesh.roundRadius(of: annotation.shape) / depth)
            let (mesh, edges) = try mesh(for: annotation.shape, segments: segments)
            rasterizer.add(mesh, edges: edges, transform: shape, camera: camera, material: material)
            if annotation.stem, let stem = AnnotationPlacement.stem(anchor: placed.world, size: annotation.size, camera: camera) {
                let grey = SurfaceMaterial(Self.stemColor, colorSpace: image.colorSpace, shaded: false)
                rasterizer.add(stemMesh, edges: stemEdges, transform: stem, camera: camera, material: grey)
            }
            spent += rasterizer.drawingCost
            guard spent <= budget else {
                rasterizer.discard()
                throw overBudget(annotation.id)
            }
            let opacity = Float(annotation.color.alpha) / 255
            rasterizer.resolve(within: frame, willDraw: { LayerCompositor.prefetch($0, of: image) }) {
                LayerCompositor.compositeAndClear($0, opacity: opacity, into: image, occlusion: occlusion)
            }
        }
        for (_, index) in order {
            let placed = annotations[index]
            guard let label = placed.annotation.label, !label.isEmpty else { continue }
            let anchor = camera.project(placed.world)
            guard anchor.depth > camera.clippingNear else { continue }
            // Clear of the shape: most of its projected radius, plus a little air.
            let radius = camera.focal.fy * placed.annotation.size / 2 / anchor.depth
            let renderer = LabelRenderer(glyphs: try glyphCache(), colorSpace: image.colorSpace), clearance = 0.7 * radius + 3
            guard let place = renderer.placement(size: placed.annotation.labelSize, anchorX: anchor.x, anchorY: anchor.y,
                                                 clearance: clearance) else { continue }
            // The plate, and an em all round for glyphs reaching past it.
            let plateWidth = labelPictures.plateWidth(of: label, em: place.em, padX: place.padX, left: place.left,
                                                      rightEdge: image.width, with: renderer)
            let layer = labelLayer(for: image, around: PixelBounds(minX: Int(place.left) - place.em, minY: Int(place.top) - place.em,
                                                                   maxX: Int(place.left + plateWidth) + place.em,
                                                                   maxY: Int(place.top + place.plateHeight) + place.em))
            let (drawn, kept) = labelPictures.draw(label, size: placed.annotation.labelSize, anchorX: anchor.x, anchorY: anchor.y,
                                                   clearance: clearance, with: renderer, colorSpace: image.colorSpace, into: layer)
            spent += Double(drawn)
            guard spent <= budget else {
                layer.clear()
                throw overBudget(placed.annotation.id)
            }
            let opacity = Float(placed.annotation.color.alpha) / 255
            // A label drawn before comes straight from its kept picture; one drawn now is in the layer.
            if let kept {
                LayerCompositor.composite(kept, opacity: opacity, into: image, occlusion: occlusion)
            } else {
                LayerCompositor.compositeAndClear(layer, opacity: opacity, into: image, occlusion: occlusion)
            }
        }
    }

    /// The layer a label is drawn in: a window of the frame over `rect` (as far as the frame
    /// reaches), its corner on even pixels (the compositor reads 2×2 blocks). Inside the frame, it
    /// clips and keeps labels as a frame-sized layer does, at a label's memory: a frame-sized one
    /// cost every process lane 14.7 MB at 720p (issue #37). Made again when the frame's size
    /// changes or a label needs a larger one.
    private func labelLayer(for image: YUVImage, around rect: PixelBounds) -> RenderLayer {
        let width = min(image.width, (rect.maxX - rect.minX + 2) & ~1), height = min(image.height, (rect.maxY - rect.minY + 2) & ~1)
        let layer: RenderLayer
        if let labelLayer, labelLayer.width >= width, labelLayer.height >= height,
           labelLayer.width <= image.width, labelLayer.height <= image.height {
            layer = labelLayer
        } else {
            // (Never smaller than the last one, so labels of several sizes settle on one layer.)
            layer = RenderLayer(width: min(image.width, max(width, labelLayer?.width ?? 0)),
                                height: min(image.height, max(height, labelLayer?.height ?? 0)))
            labelLayer = layer
        }
        layer.move(toX: max(0, min(rect.minX & ~1, image.width - layer.width)), y: max(0, min(rect.minY & ~1, image.height - layer.height)))
        return layer
    }

    /// Fills `order` with the drawable annotations, farthest anchor first, in scene order where
    /// depths tie (n log n: a scene may hold ``InputLimits/annotations`` of them).
    private func sortFarToNear(_ annotations: [PlacedAnnotation], camera: Camera) {
        order.removeAll(keepingCapacity: true)
        for (index, placed) in annotations.enumerated() {
            let size = placed.annotation.size
            guard size.isFinite, size > 0, placed.annotation.color.alpha > 0,
                  placed.world.x.isFinite, placed.world.y.isFinite, placed.world.z.isFinite else { continue }
            let depth = -camera.cameraSpace(placed.world).z
            guard depth.isFinite else { continue }
            order.append((depth, index))
        }
        order.sort { $0.depth > $1.depth || ($0.depth == $1.depth && $0.index < $1.index) }
    }

    private func mesh(for shape: AnnotationShape, segments: Int = Mesh.maximumSegments) throws(ReplayError) -> (mesh: Mesh, edges: MeshEdges?) {
        // An OBJ mesh, a box or a star is what it is: one entry whatever the size on screen.
        let key = MeshKey(shape: shape, segments: Self.isRound(shape) ? segments : 0)
        if let cached = meshes[key] { return cached }
        let mesh = try Mesh.unit(for: shape, segments: segments)
        let entry = (mesh: mesh, edges: mesh.triangles.count <= MeshEdges.maximumTriangles ? MeshEdges(mesh) : nil)
        meshes[key] = entry
        return entry
    }

    private func glyphCache() throws(ReplayError) -> GlyphCache {
        if let glyphs { return glyphs }
        let opened = try GlyphCache(path: options.fontPath)
        glyphs = opened
        return opened
    }
}
