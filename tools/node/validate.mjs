// validate.mjs FILE: runs the Khronos glTF validator (npm gltf-validator) on a
// .gltf or .glb file, resolving external buffers and images beside it, and
// prints the validation report as one JSON object on stdout. Exit code 0 when
// the validator ran (whatever it found), 2 on usage or I/O errors.
import fs from 'node:fs';
import path from 'node:path';
import validator from 'gltf-validator';

const file = process.argv[2];
if (!file) {
  console.error('usage: node validate.mjs FILE.glb|FILE.gltf');
  process.exit(2);
}
let bytes;
try {
  bytes = fs.readFileSync(file);
} catch (err) {
  console.error(`validate.mjs: ${err.message}`);
  process.exit(2);
}
const dir = path.dirname(path.resolve(file));
try {
  const report = await validator.validateBytes(new Uint8Array(bytes), {
    uri: path.basename(file),
    maxIssues: 200,
    externalResourceFunction: (uri) =>
      fs.promises.readFile(path.resolve(dir, decodeURIComponent(uri)))
        .then((b) => new Uint8Array(b)),
  });
  process.stdout.write(JSON.stringify(report) + '\n');
} catch (err) {
  console.error(`validate.mjs: validator failed on ${file}: ${err}`);
  process.exit(2);
}
