import assert from "node:assert/strict";
import { test } from "node:test";
import { celsiusToFahrenheit, fahrenheitToCelsius } from "../src/temperature.js";

test("water boils at 212 °F", () => {
  assert.equal(celsiusToFahrenheit(100), 212);
});

test("water freezes at 0 °C", () => {
  assert.equal(fahrenheitToCelsius(32), 0);
});

test("the conversions are inverse", () => {
  assert.equal(fahrenheitToCelsius(celsiusToFahrenheit(37)), 37);
});
