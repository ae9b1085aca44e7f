import { sizeBytes } from './size';

it.each([
  ['512MB', 512e6],
  ['953.6 MiB', 953.6 * 1024 ** 2],
  ['1GB', 1e9],
  ['2 GiB', 2 * 1024 ** 3],
  [' 64 mb ', 64e6],
  ['lots', null],
  ['12', null],
  ['1.5.2GB', null],
])('sizeBytes(%p)', (v, want) => {
  expect(sizeBytes(v)).toBe(want);
});
