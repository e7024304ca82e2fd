// Writes numbers.tsv: doubles and JSON number texts with the text Node's
// JSON.stringify(JSON.parse(text)) writes for them. Deterministic: run it
// again with the same Node to get the same file (see README.md).
'use strict';

// xorshift64* so the file does not depend on Math.random.
let state = 0x9e3779b97f4a7c15n;
const mask = (1n << 64n) - 1n;
function next() {
  state ^= state >> 12n;
  state ^= (state << 25n) & mask;
  state ^= state >> 27n;
  return (state * 0x2545f4914f6cdd1dn) & mask;
}
function below(n) { return Number(next() % BigInt(n)); }

const view = new DataView(new ArrayBuffer(8));
function fromBits(bits) { view.setBigUint64(0, bits); return view.getFloat64(0); }
function toBits(x) { view.setFloat64(0, x); return view.getBigUint64(0).toString(16).padStart(16, '0'); }

function digits(n) {
  let s = String(1 + below(9));
  for (let i = 1; i < n; i++) s += String(below(10));
  return s;
}

const texts = [];
// Any finite double, written with 17 significant digits.
for (let i = 0; i < 4000; i++) {
  const x = fromBits(next());
  if (Number.isFinite(x)) texts.push(x.toPrecision(17));
}
// Decimal texts of 1 to 20 digits around every decimal exponent, where the
// switch between plain and exponent notation happens.
for (let i = 0; i < 4000; i++) {
  const d = digits(1 + below(20));
  const e = below(50) - 30;
  const sign = below(4) === 0 ? '-' : '';
  const cut = below(d.length + 1);
  const mant = cut === 0 || cut === d.length ? d : d.slice(0, cut) + '.' + d.slice(cut);
  texts.push(sign + mant + (below(3) === 0 ? 'e' + e : 'E' + (e >= 0 ? '+' : '') + e));
}
// Plain decimals below 1, down to where exponent notation starts.
for (let i = 0; i < 1000; i++) {
  texts.push('0.' + '0'.repeat(below(9)) + digits(1 + below(17)));
}
// Integers around 2^53 and up to 1e21, where precision is lost.
for (let i = 0; i < 1500; i++) {
  texts.push(String(BigInt(2 ** 53) + BigInt(below(2 ** 20)) - (1n << 19n)));
  texts.push(digits(16 + below(7)));
}
// Subnormals and the extremes.
for (let i = 0; i < 500; i++) {
  texts.push(fromBits(BigInt(1 + below(2 ** 52))).toPrecision(17));
}
texts.push('5e-324', '-5e-324', '1.7976931348623157e308', '1e-7', '1e-6', '1e21', '1e20',
  '999999999999999999999', '0.1', '0.2', '0.30000000000000004', '123e-20', '-0', '-0.0', '0e10');

const lines = texts.map(t => {
  const x = JSON.parse(t);
  return toBits(x) + '\t' + t + '\t' + JSON.stringify(x);
});
process.stdout.write('# bits\ttext\tJSON.stringify(JSON.parse(text)) by Node ' + process.version + '\n' + lines.join('\n') + '\n');
