package v2to3

// CarriesCheckedPayload exposes carriesCheckedPayload to the chain tests.
var CarriesCheckedPayload = carriesCheckedPayload
