import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCsv } from './parse-csv.js';

test('parseCsv splits plain fields and records', () => {
  assert.deepEqual(parseCsv('a,b,c\n1,2,3\n'), [
    ['a', 'b', 'c'],
    ['1', '2', '3'],
  ]);
});

test('parseCsv keeps commas, doubled quotes and line breaks inside quoted fields', () => {
  assert.deepEqual(parseCsv('BTR,"Baton Rouge Metropolitan, Ryan",LA\r\nDBN,"W. H. ""Bud"" Barron","a\nb"'), [
    ['BTR', 'Baton Rouge Metropolitan, Ryan', 'LA'],
    ['DBN', 'W. H. "Bud" Barron', 'a\nb'],
  ]);
});

test('parseCsv keeps empty fields, and a last record without a line break', () => {
  assert.deepEqual(parseCsv('a,,""\n,x'), [
    ['a', '', ''],
    ['', 'x'],
  ]);
});

test('parseCsv rejects an unclosed quote and a stray quote', () => {
  assert.throws(() => parseCsv('a,"b\n'), /line 2: a quoted field is not closed/);
  assert.throws(() => parseCsv('a,b"c"\n'), /line 1: a quote inside an unquoted field/);
});
