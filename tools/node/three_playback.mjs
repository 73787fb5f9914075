// three_playback.mjs FILE T...: loads a .glb or .gltf with three.js's own
// GLTFLoader, plays every animation clip with an AnimationMixer and, for each
// time T [s], prints the world-space position of every vertex of every mesh
// as three.js evaluates it on the CPU (Mesh.getVertexPosition applies the morph
// influences the mixer set, then matrixWorld). Output: one JSON object on
// stdout:
//   {"clips":[{"name","duration","tracks"}],
//    "meshes":[{"node","mesh","primitive","name","vertices","morphTargets",
//               "morphNormals","uv","material","materialName","texture"}],
//    "frames":[{"time","positions":[[x,y,z,...] per mesh]}]}
// Textures are not decoded (Node has no image decoder): a stub texture stands
// in, so a material's texture slots still show whether a texture survived.
import fs from 'node:fs';
import path from 'node:path';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

// three's FileLoader reports progress with the browser's ProgressEvent,
// which Node 20 lacks.
globalThis.ProgressEvent ??= class ProgressEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    Object.assign(this, init);
  }
};

const [file, ...timeArgs] = process.argv.slice(2);
if (!file) {
  console.error('usage: node three_playback.mjs FILE.glb TIME...');
  process.exit(2);
}
const times = timeArgs.map(Number);
if (times.some((t) => !Number.isFinite(t))) {
  console.error(`three_playback.mjs: times must be numbers, got ${timeArgs.join(' ')}`);
  process.exit(2);
}

class StubTextures {
  constructor(parser) {
    this.name = 'drape_stub_textures';
    this.parser = parser;
  }
  loadTexture(index) {
    const t = new THREE.Texture();
    t.name = `texture_${index}`;
    t.userData.gltfTexture = index;
    return Promise.resolve(t);
  }
}

// Node's fetch cannot read files, so a .gltf's external buffers are inlined
// as data URIs first (data: URIs it fetches fine).
let data = fs.readFileSync(file);
if (data.length >= 4 && data.toString('latin1', 0, 4) !== 'glTF') {
  const json = JSON.parse(data.toString('utf8'));
  for (const b of json.buffers || []) {
    if (b.uri && !b.uri.startsWith('data:')) {
      const bin = fs.readFileSync(path.resolve(path.dirname(file), decodeURIComponent(b.uri)));
      b.uri = 'data:application/octet-stream;base64,' + bin.toString('base64');
    }
  }
  data = Buffer.from(JSON.stringify(json));
}
const buf = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
const loader = new GLTFLoader();
loader.register((parser) => new StubTextures(parser));
const dir = path.dirname(path.resolve(file)) + '/';

const gltf = await new Promise((resolve, reject) => loader.parse(buf, dir, resolve, reject)).catch((err) => {
  console.error(`three_playback.mjs: GLTFLoader failed on ${file}: ${err && err.stack ? err.stack : err}`);
  process.exit(1);
});

const assoc = gltf.parser.associations;
const meshes = [];
gltf.scene.traverse((o) => {
  if (!o.isMesh) return;
  const a = assoc.get(o) || {};
  let node = a.nodes;
  if (node === undefined && o.parent) node = (assoc.get(o.parent) || {}).nodes;
  const g = o.geometry;
  const m = Array.isArray(o.material) ? o.material[0] : o.material;
  meshes.push({
    obj: o,
    info: {
      node: node ?? -1,
      mesh: a.meshes ?? -1,
      primitive: a.primitives ?? 0,
      name: o.name,
      vertices: g.attributes.position.count,
      morphTargets: (g.morphAttributes.position || []).length,
      morphNormals: (g.morphAttributes.normal || []).length,
      uv: g.attributes.uv !== undefined,
      material: (assoc.get(m) || {}).materials ?? -1,
      materialName: m ? m.name : '',
      texture: !!(m && m.map),
    },
  });
});

const mixer = new THREE.AnimationMixer(gltf.scene);
for (const clip of gltf.animations) {
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
}

const frames = [];
const v = new THREE.Vector3();
for (const t of times) {
  mixer.setTime(t);
  gltf.scene.updateMatrixWorld(true);
  const positions = meshes.map(({ obj }) => {
    const n = obj.geometry.attributes.position.count;
    const out = new Array(3 * n);
    for (let i = 0; i < n; i++) {
      obj.getVertexPosition(i, v);
      v.applyMatrix4(obj.matrixWorld);
      out[3 * i] = v.x;
      out[3 * i + 1] = v.y;
      out[3 * i + 2] = v.z;
    }
    return out;
  });
  frames.push({ time: t, positions });
}

process.stdout.write(JSON.stringify({
  clips: gltf.animations.map((c) => ({ name: c.name, duration: c.duration, tracks: c.tracks.length })),
  meshes: meshes.map((m) => m.info),
  frames,
}) + '\n');
