#!/usr/bin/env bash
# Writes the seed corpus of every fuzz target into Fuzz/Corpus/<target>/ (committed; rerun after
# changing a seed). Generated inputs only: the PEM seeds are public keys made now (the private
# halves go through a pipe and are never written) and deliberately broken PEM text.
# Usage: Fuzz/make-corpus.sh   (from the repository root; builds `liveline` for the UI seeds)
set -euo pipefail
cd "$(dirname "$0")/.."
out=Fuzz/Corpus
rm -rf "$out" && mkdir -p "$out"/{json,voltra-json,voltra-base64,layout-form,pem-key,simulator,service}
seed() { printf '%s' "$3" > "$out/$1/$2"; }

# JSON
seed json object '{"aps":{"alert":{"title":"Gate","body":"B12"},"sound":"default","badge":1},"id":"a\u00e9\ud83d\ude00"}'
seed json numbers '[0,-0,1.5e10,-2E-3,9007199254740993,1e308,0.1,123456789012345678901234567890]'
seed json strings '["","\"\\/\b\f\n\r\t","\u0000","caf\u00e9","\ud83d\ude00"]'
seed json nested '{"a":[{"b":[[[{"c":null}]]]},true,false,null]}'
seed json duplicate '{"event":"update","event":"end"}'
seed json whitespace $' \t\n{ "k" : [ 1 , 2 ] }\r\n'

# Layouts (JSON form), then their wire encodings from `liveline ui encode`.
cp docs/ui-boarding.json "$out/layout-form/boarding"
seed layout-form text '{"lockScreen":{"type":"Text","props":{"style":{"fontSize":17,"color":"#FFFFFF"}},"children":"Boarding"}}'
seed layout-form island '{"lockScreen":{"content":{"type":"VStack","children":[{"type":"Text","children":["a","b"]},{"type":"Spacer"}]},"activityBackgroundTint":"#000000"},"island":{"compactLeading":{"type":"Symbol","props":{"name":"airplane"}},"compactTrailing":{"type":"Text","children":"B12"},"minimal":{"type":"Text","children":"B"}}}'
seed layout-form bad-type '{"lockScreen":{"type":"Nope","props":{"style":null}}}'
liveline=.build/debug/liveline
[ -x "$liveline" ] || swift build --product liveline
for f in "$out"/layout-form/*; do
  name=$(basename "$f")
  "$liveline" ui encode "$f" > "$out/voltra-base64/$name" 2>/dev/null || rm -f "$out/voltra-base64/$name"
  "$liveline" ui encode --compat "$f" > "$out/voltra-base64/$name-compat" 2>/dev/null || rm -f "$out/voltra-base64/$name-compat"
  "$liveline" ui encode --json "$f" > "$out/voltra-json/$name" 2>/dev/null || rm -f "$out/voltra-json/$name"
  "$liveline" ui encode --json --compat "$f" > "$out/voltra-json/$name-compat" 2>/dev/null || rm -f "$out/voltra-json/$name-compat"
done
seed voltra-base64 not-base64 'not base64!'
seed voltra-base64 not-brotli 'AAAAAAAAAAAAAAAA'
seed voltra-json not-payload '[1,2,3]'

# PEM: public keys only, made now; broken and wrong-kind texts.
p256=$(openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl ec -pubout 2>/dev/null)
p384=$(openssl ecparam -name secp384r1 -genkey -noout 2>/dev/null | openssl ec -pubout 2>/dev/null)
ed=$(openssl genpkey -algorithm ed25519 2>/dev/null | openssl pkey -pubout 2>/dev/null)
seed pem-key p256-public "$p256"$'\n'
seed pem-key p384-public "$p384"$'\n'
seed pem-key ed25519-public "$ed"$'\n'
body=$(printf '%s\n' "$p256" | sed '1d;$d' | tr -d '\n')
seed pem-key public-as-private $'-----BEGIN PRIVATE KEY-----\n'"$body"$'\n-----END PRIVATE KEY-----\n'
seed pem-key truncated "$(printf '%s\n' "$p256" | head -c 90)"
seed pem-key bad-base64 $'-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0w!!!!\n-----END PRIVATE KEY-----\n'
seed pem-key encrypted $'-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAc\n-----END ENCRYPTED PRIVATE KEY-----\n'
seed pem-key mismatched $'-----BEGIN PUBLIC KEY-----\n'"$body"$'\n-----END PRIVATE KEY-----\n'
seed pem-key empty ''

# Simulator requests: `METHOD PATH`, headers, blank line, body; $JWT $TOKEN $PTS $NOW are filled in at run time.
h=$'authorization: bearer $JWT\napns-topic: com.example.flights'
la=$'authorization: bearer $JWT\napns-push-type: liveactivity\napns-topic: com.example.flights.push-type.liveactivity'
seed simulator alert $'POST /3/device/$TOKEN\n'"$h"$'\napns-push-type: alert\n\n{"aps":{"alert":"Gate changed"}}'
seed simulator start $'POST /3/device/$PTS\n'"$la"$'\napns-priority: 10\n\n{"aps":{"timestamp":$NOW,"event":"start","content-state":{"status":"boarding","gate":"B12","boardingTime":800000000,"delayMinutes":0,"isBoarding":true},"attributes-type":"FlightAttributes","attributes":{"flightNumber":"LL 1234","origin":"LIS","destination":"ZRH","airline":"Liveline Air","departure":800000000},"alert":{"title":"Boarding","body":"Gate B12"},"input-push-token":1}}'
seed simulator update $'POST /3/device/$TOKEN\n'"$la"$'\n\n{"aps":{"timestamp":$NOW,"event":"update","content-state":{"status":"delayed","gate":"C1","boardingTime":800000000,"delayMinutes":20,"isBoarding":false},"stale-date":9999999999}}'
seed simulator background $'POST /3/device/$TOKEN\n'"$h"$'\napns-push-type: background\napns-priority: 5\napns-expiration: 0\napns-collapse-id: x\n\n{"aps":{"content-available":1}}'
seed simulator no-auth $'POST /3/device/$TOKEN\napns-topic: com.example.flights\n\n{"aps":{}}'
seed simulator channels $'POST /1/apps/com.example.flights/channels\n'"$h"$'\n\n{"message-storage-policy":1,"push-type":"LiveActivity"}'
seed simulator broadcast $'POST /4/broadcasts/apps/com.example.flights\n'"$la"$'\napns-channel-id: dGVzdA==\n\n{"aps":{"event":"update","timestamp":$NOW,"content-state":{}}}'
seed simulator bad-path $'GET /2/nothing\n\n'

# Service requests: same form, a `?query` allowed; $ADMIN and $APP are keys made at run time, $INST and $DEV
# an installation the app key made (its credential and its id).
seed service health $'GET /healthz\n\n'
seed service openapi $'GET /openapi.json\n\n'
seed service app $'POST /v1/apps\nauthorization: Bearer $ADMIN\ncontent-type: application/json\n\n{"bundleID":"com.example.flights","teamID":"TEAM000001","keyID":"KEY0000001","key":"-----BEGIN PRIVATE KEY-----\\nAAAA\\n-----END PRIVATE KEY-----\\n","environment":"sandbox"}'
seed service key $'POST /v1/keys\nauthorization: Bearer $ADMIN\n\n{"scope":"app","name":"ci"}'
seed service device $'PUT /v1/devices/$DEV\nauthorization: Bearer $INST\n\n{"bundleID":"com.example.flights","iosVersion":"18.2","userID":"u1"}'
seed service push-to-start $'PUT /v1/devices/$DEV/push-to-start/FlightAttributes\nauthorization: Bearer $INST\n\n{"token":"0123456789abcdef0123456789abcdef"}'
seed service token $'PUT /v1/activities/$DEV:flight-1/tokens/$DEV\nauthorization: Bearer $INST\n\n{"token":"abcdef0123456789abcdef0123456789"}'
seed service start $'POST /v1/activities/flight-1/start\nauthorization: Bearer $ADMIN\nidempotency-key: start-1\n\n{"attributesType":"FlightAttributes","attributes":{"flightNumber":"LL 1234","origin":"LIS","destination":"ZRH","airline":"Liveline Air","departure":"2026-12-01T18:00:00Z"},"contentState":{"status":"scheduled","gate":"B12","boardingTime":"2026-12-01T17:20:00Z","delayMinutes":0,"isBoarding":false},"alert":{"title":"LL 1234","body":"Tracking"},"audience":{"userIDs":["u1"]}}'
seed service update $'POST /v1/activities/flight-1/update\nauthorization: Bearer $ADMIN\n\n{"contentState":{"status":"boarding","gate":"B12","boardingTime":"2026-12-01T17:20:00Z","delayMinutes":0,"isBoarding":true},"priority":10}'
seed service end $'POST /v1/activities/flight-1/end\nauthorization: Bearer $ADMIN\n\n{"dismissal":"immediate"}'
seed service get-activity $'GET /v1/activities/flight-1?limit=10\nauthorization: Bearer $ADMIN\n\n'
seed service interaction $'POST /v1/activities/$DEV:flight-1/interactions\nauthorization: Bearer $INST\nidempotency-key: tap-1\n\n{"action":"tap","payload":{"at":"2026-12-01T17:00:00Z"}}'
seed service receipts $'POST /v1/activities/$DEV:flight-1/receipts\nauthorization: Bearer $INST\n\n{"displayedAt":"2026-12-01T17:00:00Z"}'
seed service channel $'POST /v1/channels\nauthorization: Bearer $ADMIN\n\n{"bundleID":"com.example.flights","storagePolicy":"none"}'
seed service channels $'GET /v1/channels?bundleID=com.example.flights\nauthorization: Bearer $ADMIN\n\n'
seed service delete-device $'DELETE /v1/devices/$DEV\nauthorization: Bearer $INST\n\n'
seed service no-key $'POST /v1/activities/x/start\n\n{}'
echo "corpus written to $out: $(find "$out" -type f | wc -l) files" >&2
