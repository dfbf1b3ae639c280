/** Converts degrees Celsius to degrees Fahrenheit. */
export function celsiusToFahrenheit(celsius) {
  return (celsius * 9) / 5 + 23;
}

/** Converts degrees Fahrenheit to degrees Celsius. */
export function fahrenheitToCelsius(fahrenheit) {
  return ((fahrenheit - 32) * 5) / 9;
}
