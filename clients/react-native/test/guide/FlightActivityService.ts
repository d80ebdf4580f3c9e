import { NativeModules, NativeEventEmitter, Platform } from 'react-native';

const { LiveActivityModule } = NativeModules;

interface FlightData {
  flightNumber: string;
  origin: string;
  destination: string;
  airline: string;
  scheduledDeparture: number; // Unix timestamp
  status: string;
  gate: string;
  boardingTime: number; // Unix timestamp
  delayMinutes: number;
}

interface UpdateData {
  status?: string;
  gate?: string;
  boardingTime?: number;
  delayMinutes?: number;
  isBoarding?: boolean;
}

interface ActivityResult {
  activityId: string;
  success: boolean;
}

class FlightActivityService {
  private eventEmitter: NativeEventEmitter | null = null;
  private pushTokenCallback: ((token: string, activityId: string) => void) | null = null;

  constructor() {
    if (Platform.OS === 'ios' && LiveActivityModule) {
      this.eventEmitter = new NativeEventEmitter(LiveActivityModule);
      this.setupEventListeners();
    }
  }

  private setupEventListeners() {
    this.eventEmitter?.addListener('onPushTokenUpdate', (data) => {
      if (this.pushTokenCallback) {
        this.pushTokenCallback(data.pushToken, data.activityId);
      }
    });
  }

  async startActivity(flightData: FlightData): Promise<ActivityResult> {
    if (Platform.OS !== 'ios') {
      throw new Error('Live Activities are only available on iOS');
    }

    if (!LiveActivityModule) {
      throw new Error('LiveActivityModule is not available');
    }

    return LiveActivityModule.startFlightActivity(flightData);
  }

  async updateActivity(activityId: string, updateData: UpdateData): Promise<{ success: boolean }> {
    if (Platform.OS !== 'ios' || !LiveActivityModule) return { success: false };
    return LiveActivityModule.updateFlightActivity(activityId, updateData);
  }

  async endActivity(activityId: string): Promise<{ success: boolean }> {
    if (Platform.OS !== 'ios' || !LiveActivityModule) return { success: false };
    return LiveActivityModule.endFlightActivity(activityId);
  }

  onPushTokenUpdate(callback: (token: string, activityId: string) => void) {
    this.pushTokenCallback = callback;
  }
}

export const flightActivityService = new FlightActivityService();
export type { FlightData, UpdateData, ActivityResult };
