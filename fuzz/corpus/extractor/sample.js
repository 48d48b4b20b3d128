// A small module exercising imports, classes, closures and calls.
import { readFile } from './fs';
const path = require('path');

export class Cache {
  constructor(limit) {
    this.limit = limit;
    this.items = new Map();
  }
  get(key) {
    return this.items.get(key);
  }
}

export function load(name, cache = new Cache(10)) {
  const hit = cache.get(name);
  if (hit) return hit;
  const full = path.join('.', name);
  return readFile(full).then((text) => text.trim());
}
