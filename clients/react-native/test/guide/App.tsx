import React, { useState, useCallback } from 'react';
import { View, Button, Text, Alert } from 'react-native';
import { flightActivityService, FlightData } from './FlightActivityService';

const FlightTrackerApp = () => {
  const [activityId, setActivityId] = useState<string | null>(null);
  const [isLoading, setIsLoading] = useState(false);

  const flightData: FlightData = {
    flightNumber: 'GA 2025',
    origin: 'BLR',
    destination: 'BOM',
    airline: 'GeekyAir',
    scheduledDeparture: Date.now() / 1000 + 3600,
    status: 'On Time',
    gate: 'A12',
    boardingTime: Date.now() / 1000 + 2700,
    delayMinutes: 0,
  };

  const startTracking = useCallback(async () => {
    setIsLoading(true);
    try {
      const result = await flightActivityService.startActivity(flightData);
      setActivityId(result.activityId);

      // Register for push token updates
      flightActivityService.onPushTokenUpdate(async (token, id) => {
        // Send push token to your backend
        await fetch('https://your-api.com/register-push-token', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ activityId: id, pushToken: token }),
        });
      });

      Alert.alert('Success', 'Flight tracking started!');
    } catch (error) {
      Alert.alert('Error', `Failed to start tracking: ${error}`);
    } finally {
      setIsLoading(false);
    }
  }, []);

  const simulateGateChange = useCallback(async () => {
    if (!activityId) return;
    await flightActivityService.updateActivity(activityId, {
      gate: 'B7',
      status: 'Gate Changed',
      delayMinutes: 15,
    });
  }, [activityId]);

  const simulateBoarding = useCallback(async () => {
    if (!activityId) return;
    await flightActivityService.updateActivity(activityId, {
      isBoarding: true,
      status: 'Boarding Now',
    });
  }, [activityId]);

  const endTracking = useCallback(async () => {
    if (!activityId) return;
    await flightActivityService.endActivity(activityId);
    setActivityId(null);
  }, [activityId]);

  return (
    <View style={{ flex: 1, justifyContent: 'center', padding: 20 }}>
      <Text style={{ fontSize: 24, fontWeight: 'bold', marginBottom: 20 }}>
        Flight Tracker
      </Text>

      {!activityId ? (
        <Button title="Start Tracking" onPress={startTracking} disabled={isLoading} />
      ) : (
        <>
          <Text style={{ marginBottom: 10 }}>Activity ID: {activityId.slice(0, 8)}...</Text>
          <Button title="Simulate Gate Change" onPress={simulateGateChange} />
          <Button title="Start Boarding" onPress={simulateBoarding} />
          <Button title="End Tracking" onPress={endTracking} color="red" />
        </>
      )}
    </View>
  );
};

export default FlightTrackerApp;
